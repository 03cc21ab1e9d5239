import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { shellTool } from "../../src/tools/builtins/shell.js";
import { CommandSandbox, type ShellPolicy } from "../../src/tools/sandbox/command-sandbox.js";
import type { SandboxMode } from "../../src/tools/sandbox/sandbox-mode.js";
import { NO_ENVIRONMENT_FILTER } from "../../src/tools/sandbox/shell-environment.js";
import { call, makeSandbox, type Sandbox } from "../tools/sandbox.js";

/**
 * Real commands in bubblewrap (docs/sandbox.md): what the sandbox refuses, what it lets through,
 * and that the output tells the model it was the sandbox. Each refusal is checked against the
 * same command with the sandbox off, so a test fails if the sandbox lets it through.
 */

let box: Sandbox;
let home: string;
const opened: CommandSandbox[] = [];

afterEach(async () => {
	for (const sandbox of opened.splice(0)) await sandbox.close();
	box.cleanup();
});

function setUp(): void {
	box = makeSandbox();
	home = join(box.root, "home");
	mkdirSync(home);
	writeFileSync(join(home, "server.json"), '{"token":"tok-home-secret"}');
}

async function shell(
	command: string,
	mode: SandboxMode = "workspace-write",
	network: readonly string[] = [],
	env = process.env,
): Promise<string> {
	const policy: ShellPolicy = { sandbox: mode, network, env: NO_ENVIRONMENT_FILTER };
	const sandbox = await CommandSandbox.open(policy, { workspaceDir: box.workspace, home, env });
	opened.push(sandbox);
	expect(sandbox.state).toEqual({ mode, available: true });
	const { ctx } = box.context();
	return call(shellTool, { command }, { ...ctx, sandbox });
}

describe("the shell's sandbox, workspace-write", () => {
	it("refuses a write outside the workspace, and says the sandbox refused it", async () => {
		setUp();
		const target = join(box.outside, "escaped.txt");
		// In the host's temp folder, which the sandbox shows empty: the folder is not there at all.
		const out = await shell(`echo no > ${target}`);
		expect(out).toContain("No such file or directory");
		expect(out).toContain("[sandbox workspace-write: this looks refused by the sandbox (a path in /tmp, ");
		expect(existsSync(target)).toBe(false);
		// Anywhere else, the file system is read-only.
		const elsewhere = await shell("touch /usr/omniloop-escaped.txt");
		expect(elsewhere).toContain("Read-only file system");
		expect(elsewhere).toContain(
			"[sandbox workspace-write: this looks refused by the sandbox (a write outside the writable folders)",
		);
		expect(existsSync("/usr/omniloop-escaped.txt")).toBe(false);
		expect(await shell(`echo yes > ${target}`, "off")).toBe("(no output)\n[exit code 0]");
		expect(readFileSync(target, "utf8")).toBe("yes\n");
	});

	it("lets a write inside the workspace and in $TMPDIR through", async () => {
		setUp();
		const out = await shell('echo in > made.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"');
		const [, tempDir] = out.split("\n");
		expect(out).toBe(`tmp\n${tempDir}\n[exit code 0]`);
		expect(readFileSync(join(box.workspace, "made.txt"), "utf8")).toBe("in\n");
		expect(tempDir?.startsWith(box.workspace)).toBe(false);
	});

	it("hides the omniloop home: neither readable nor listable, even from inside the workspace", async () => {
		setUp();
		const out = await shell(`cat ${home}/server.json; ls ${home}`);
		expect(out).not.toContain("tok-home-secret");
		expect(out).not.toContain("server.json\n");
		expect(out).toContain("Permission denied");
		expect(out).toContain("a read of the omniloop home");
		expect(await shell(`cat ${home}/server.json`, "off")).toContain("tok-home-secret");
	});

	it("hides the home inside the workspace too (omniloop serve started in ~)", async () => {
		setUp();
		home = join(box.workspace, ".omniloop");
		mkdirSync(home);
		writeFileSync(join(home, "server.json"), '{"token":"tok-inside"}');
		const out = await shell(
			"cat .omniloop/server.json; grep -r tok-inside . ; echo visible > kept.txt && cat kept.txt",
		);
		expect(out).not.toContain('tok-inside"');
		expect(out).toContain("Permission denied");
		expect(out).toContain("visible\n");
		expect(readFileSync(join(box.workspace, "kept.txt"), "utf8")).toBe("visible\n");
	});

	it("cannot see or signal the host's processes, so it cannot read their environment", async () => {
		setUp();
		const out = await shell(`kill -0 ${process.pid} 2>&1 && echo reached`);
		expect(out).not.toContain("reached");
		expect(await shell(`kill -0 ${process.pid} && echo reached`, "off")).toContain("reached");
	});
});

describe("the shell's sandbox and the network", () => {
	let server: Server;
	let port: number;
	let requests = 0;

	beforeAll(async () => {
		server = createServer((_req, res) => {
			requests++;
			res.end("reached");
		});
		await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
		port = (server.address() as AddressInfo).port;
	});
	afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

	it("refuses curl and node's fetch to a server on the host's loopback, and names the sandbox", async () => {
		setUp();
		const url = `http://127.0.0.1:${port}/`;
		const fetchScript = `fetch('${url}').then(r => r.text()).then(t => console.log(t), e => { console.log(e.cause?.code ?? e.message); process.exit(1); })`;
		const before = requests;
		const curl = await shell(`curl -sS --max-time 20 ${url}`);
		const node = await shell(`node -e "${fetchScript}"`);
		expect(requests).toBe(before);
		for (const out of [curl, node]) {
			expect(out).not.toContain("reached");
			expect(out).toContain("[sandbox workspace-write: this looks refused by the sandbox (a network connection)");
		}
		expect(node).toContain("ECONNREFUSED");
		expect(await shell(`curl -sS --max-time 20 ${url}`, "off")).toContain("reached");
		expect(requests).toBe(before + 1);
	});
});

describe("the shell's sandbox with allowed hosts (network: [hosts])", () => {
	let server: Server;
	let port: number;
	const seen: string[] = [];

	beforeAll(async () => {
		server = createServer((req, res) => {
			seen.push(`${req.headers.host} ${req.url}`);
			res.end("reached");
		});
		await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
		port = (server.address() as AddressInfo).port;
	});
	afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

	it("reaches an allowed host through the proxy, and only that one; going around the proxy reaches nothing", async () => {
		setUp();
		seen.length = 0;
		// A host's other ports than 80 and 443 are allowed only by name (allowed-hosts.ts).
		const allowed = `localhost:${port}`;
		const reached = await shell(`curl -sS --max-time 20 http://localhost:${port}/a`, "workspace-write", [allowed]);
		expect(reached).toBe("reached\n[exit code 0]");
		const tunnel = await shell(`curl -sS --max-time 20 -p http://localhost:${port}/tunnelled`, "workspace-write", [
			allowed,
		]);
		expect(tunnel).toBe("reached\n[exit code 0]");
		expect(seen).toEqual([`localhost:${port} /a`, `localhost:${port} /tunnelled`]);

		const other = await shell(`curl -sS --max-time 20 -p http://127.0.0.1:${port}/b`, "workspace-write", [allowed]);
		expect(other).toContain("CONNECT tunnel failed, response 403");
		const plain = await shell(`curl -sS --max-time 20 http://127.0.0.1:${port}/c`, "workspace-write", [allowed]);
		expect(plain).toContain(`omniloop sandbox: 127.0.0.1 is not an allowed host (network: ${allowed};`);
		const around = await shell(`curl -sS --max-time 20 --noproxy '*' http://localhost:${port}/d`, "workspace-write", [
			allowed,
		]);
		expect(around).toContain("Failed to connect");
		for (const out of [other, plain, around]) {
			expect(out).toContain(`reach only ${allowed} (HTTP and HTTPS, through the proxy in $HTTPS_PROXY)`);
		}
		expect(seen).toHaveLength(2);
	});

	it("keeps the command's exit code and output order through the bridge, and its time limit stops it all", async () => {
		setUp();
		expect(await shell("echo out; echo err >&2; exit 7", "workspace-write", ["localhost"])).toBe(
			"out\nerr\n[exit code 7]",
		);
		const sandbox = await CommandSandbox.open(
			{ sandbox: "workspace-write", network: ["localhost"], env: NO_ENVIRONMENT_FILTER },
			{ workspaceDir: box.workspace, home, env: process.env },
		);
		opened.push(sandbox);
		const { ctx } = box.context();
		await expect(call(shellTool, { command: "sleep 30", timeout_ms: 1_000 }, { ...ctx, sandbox })).rejects.toThrow(
			/^The command timed out after 1,000 ms; it and every process it started were stopped/,
		);
	});
});

describe("the shell's sandbox, read-only", () => {
	it("refuses a write in the workspace too, and lets $TMPDIR through", async () => {
		setUp();
		const out = await shell('echo no > made.txt; echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"', "read-only");
		expect(out).toContain("Read-only file system");
		expect(out).toContain("tmp\n");
		expect(out).toContain("[sandbox read-only:");
		expect(out).toContain("Commands here may write in only $TMPDIR");
		expect(existsSync(join(box.workspace, "made.txt"))).toBe(false);
	});
});

describe("a machine without the sandbox", () => {
	it("says so, with why, when bubblewrap is missing ($OMNILOOP_BWRAP names the binary)", async () => {
		setUp();
		const missing = join(box.root, "no-bwrap");
		const env = { ...process.env, OMNILOOP_BWRAP: missing };
		const policy: ShellPolicy = { sandbox: "workspace-write", network: [], env: NO_ENVIRONMENT_FILTER };
		const sandbox = await CommandSandbox.open(policy, { workspaceDir: box.workspace, home, env });
		opened.push(sandbox);
		expect(sandbox.state).toEqual({
			mode: "workspace-write",
			available: false,
			reason: `bubblewrap is not installed (no ${missing}; on Debian or Ubuntu: apt-get install bubblewrap)`,
		});
		expect(sandbox.unsandboxed).toContain("the workspace-write sandbox is not available here");
		const off = await CommandSandbox.open({ ...policy, sandbox: "off" }, { workspaceDir: box.workspace, home, env });
		expect(off.state).toEqual({ mode: "off", available: true });
		expect(off.unsandboxed).toBeUndefined();
	});
});
