import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	realpathSync,
	renameSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { shellTool } from "../../src/tools/builtins/shell.js";
import { CommandSandbox, type SandboxPlace, type ShellPolicy } from "../../src/tools/sandbox/command-sandbox.js";
import type { SandboxMode } from "../../src/tools/sandbox/sandbox-mode.js";
import { NO_ENVIRONMENT_FILTER } from "../../src/tools/sandbox/shell-environment.js";
import { cleanup, ofType, runText, strictAgent, tempDir } from "../harness.js";
import { call, makeSandbox, type Sandbox } from "../tools/sandbox.js";

/**
 * The holes a review found in the shell's sandbox (docs/sandbox.md), each as real commands in
 * bubblewrap, each checked against the sandbox off so a test fails if the sandbox lets it through.
 */

let box: Sandbox;
let home: string;
const opened: CommandSandbox[] = [];
const servers: Server[] = [];
const dirs: string[] = [];

afterEach(async () => {
	for (const sandbox of opened.splice(0)) await sandbox.close();
	for (const server of servers.splice(0)) await new Promise<void>((closed) => server.close(() => closed()));
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	box.cleanup();
	cleanup();
});

function setUp(): void {
	box = makeSandbox();
	home = join(box.root, "home");
	mkdirSync(home);
}

async function open(mode: SandboxMode, more: Partial<SandboxPlace> = {}): Promise<CommandSandbox> {
	const policy: ShellPolicy = { sandbox: mode, network: [], env: NO_ENVIRONMENT_FILTER };
	const sandbox = await CommandSandbox.open(policy, { workspaceDir: box.workspace, home, env: process.env, ...more });
	opened.push(sandbox);
	return sandbox;
}

async function shell(command: string, mode: SandboxMode = "workspace-write", more: Partial<SandboxPlace> = {}) {
	const sandbox = await open(mode, more);
	const { ctx } = box.context();
	return call(shellTool, { command }, { ...ctx, sandbox });
}

/** An HTTP service on a Unix socket, as Docker's daemon or a user's service would be; counts its requests. */
async function socketService(path: string): Promise<{ requests: () => number }> {
	let requests = 0;
	const server = createServer((_req, res) => {
		requests++;
		res.end("reached the host service");
	});
	servers.push(server);
	await new Promise<void>((listening) => server.listen(path, listening));
	return { requests: () => requests };
}

describe("host services on Unix sockets", () => {
	it("are out of reach in /tmp and beside the home, and the output names the sandbox", async () => {
		setUp();
		const inTmp = realpathSync(mkdtempSync("/tmp/omniloop-host-"));
		dirs.push(inTmp);
		const sockets = [join(inTmp, "host-service.sock"), join(box.root, "beside-home.sock")];
		for (const socket of sockets) {
			const service = await socketService(socket);
			const command = `curl -sS --max-time 20 --unix-socket ${socket} http://x/`;
			const out = await shell(command);
			expect(out).not.toContain("reached the host service");
			expect(out).toContain("[sandbox workspace-write: this looks refused by the sandbox (a network connection)");
			const node = await shell(
				`node -e "require('net').connect('${socket}').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"`,
			);
			expect(node).toMatch(
				/^ENOENT\n\[exit code 0\]\n\[sandbox workspace-write: this looks refused by the sandbox \(a path in \/tmp, /,
			);
			expect(service.requests()).toBe(0);
			expect(await shell(command, "off")).toContain("reached the host service");
			expect(service.requests()).toBe(1);
		}
	});

	it("their variables (SSH_AUTH_SOCK and other *_SOCK, *_SOCKET) are not in the command's environment", async () => {
		setUp();
		const env = { ...process.env, SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1", DOCKER_SOCKET: "/run/docker.sock" };
		expect(await shell('echo "[$SSH_AUTH_SOCK][$DOCKER_SOCKET]"', "workspace-write", { env })).toBe(
			"[][]\n[exit code 0]",
		);
	});
});

describe("the kernel's settings (/proc/sys)", () => {
	it("are read-only to a command, root's included", async () => {
		setUp();
		// Only probes: nothing is written to the host's settings, whatever the outcome.
		const probe =
			'awk \'$2 == "/proc/sys" { split($4, o, ","); print "mounted " o[1] }\' /proc/self/mounts; [ -w /proc/sys/kernel/core_pattern ] && echo WRITABLE || echo not writable';
		expect(await shell(probe)).toBe("mounted ro\nnot writable\n[exit code 0]");
	});
});

describe("a workspace swapped for a link after the Session was confined to it", () => {
	it("refuses the command, so nothing is written where the link leads", async () => {
		setUp();
		const sandbox = await open("workspace-write");
		const { ctx } = box.context();
		expect(await call(shellTool, { command: "echo in > before.txt" }, { ...ctx, sandbox })).toBe(
			"(no output)\n[exit code 0]",
		);
		renameSync(box.workspace, `${box.workspace}-moved`);
		symlinkSync(box.outside, box.workspace);
		await expect(
			call(shellTool, { command: `touch escaped.txt ${box.workspace}/escaped2.txt` }, { ...ctx, sandbox }),
		).rejects.toThrow(
			`The command was not run: the workspace ${box.workspace} now leads to ${box.outside} (it was replaced by a link or moved)`,
		);
		expect(existsSync(join(box.outside, "escaped.txt"))).toBe(false);
		expect(existsSync(join(box.outside, "escaped2.txt"))).toBe(false);
	});
});

describe("the host's denied paths (a SQLite store outside the home)", () => {
	it("are hidden from commands as from the file tools: a file and a folder", async () => {
		setUp();
		const database = join(box.outside, "omniloop.db");
		writeFileSync(database, "sqlite-secret-rows");
		const folder = join(box.outside, "secrets");
		mkdirSync(folder);
		writeFileSync(join(folder, "key"), "folder-secret");
		const command = `cat ${database} ${folder}/key; ls ${folder}`;
		const deniedPaths = [database, `${database}-wal`, folder];
		// Not under a folder the sandbox empties anyway (the test's own files are in /tmp): bound back as a workspace would be.
		const out = await shell(command, "read-only", { workspaceDir: box.root, deniedPaths });
		expect(out).not.toContain("sqlite-secret-rows");
		expect(out).not.toContain("folder-secret");
		expect(out).toContain("Permission denied");
		const open = await shell(command, "read-only", { workspaceDir: box.root });
		expect(open).toContain("sqlite-secret-rows");
		expect(open).toContain("folder-secret");
	});
});

describe("the credentials the project's models send, whatever their names", () => {
	it("a model's ${DEEPSEEK} does not reach a command", async () => {
		const configDir = tempDir("omniloop-config-");
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			'models:\n  deep: { provider: openai, model: x, apiKey: "${DEEPSEEK}" }\nagents:\n  bot: { model: deep }\n',
		);
		const model = new ScriptedModel([
			[callTool("shell", { command: 'echo "[$DEEPSEEK][$PLAIN]"' }, "s1")],
			[say("done")],
		]);
		const agent = await strictAgent({
			agentId: "bot",
			configDir,
			home: tempDir("omniloop-home-"),
			models: { deep: model },
			builtins: true,
			approval: { shell: "allow" },
			env: { ...process.env, DEEPSEEK: "sk-deep-0123456789", PLAIN: "kept" },
		});
		const session = await agent.createSession({ workspaceDir: tempDir("omniloop-ws-") });
		const out = await runText(session, "go");
		expect(ofType(out, "tool_call_output")).toMatchObject([{ output: "[][kept]\n[exit code 0]", status: "ok" }]);
	});
});
