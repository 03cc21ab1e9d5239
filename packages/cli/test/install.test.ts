import { execFile } from "node:child_process";
import {
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { OmniMessage } from "@omniloop/core";
import { FakeProviderServer } from "@omniloop/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assetsOf, betterSqlitePrebuilds, type Ran, type Started, shell, startShell } from "./install-steps.js";

const ROOT = realpathSync(fileURLToPath(new URL("../../..", import.meta.url)));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
	.version;

/**
 * README's Install section, command by command; the test runs these words (its first line is the
 * state the run starts from: the repository's `npm ci`, and the build of the global setup).
 */
const BUILD = "npm ci && npm run build";
const PACK = "npm pack -w packages/core -w packages/client -w packages/server -w packages/cli";
const INSTALL = `npm install -g --allow-scripts=better-sqlite3 ./omniloop-core-${VERSION}.tgz ./omniloop-client-${VERSION}.tgz ./omniloop-server-${VERSION}.tgz ./omniloop-${VERSION}.tgz`;
const VERSION_CHECK = "omniloop --version";
const RUN = 'omniloop run "what is here?" --json';
const SERVE = "omniloop serve --port 0";

/** The command lines of README's "Install the `omniloop` command" section, comments left out. */
function readmeInstallCommands(): string[] {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const start = readme.indexOf("### Install the `omniloop` command");
	const section = readme.slice(start, readme.indexOf("\n### ", start + 1));
	return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
		.flatMap((block) => (block[1] ?? "").split("\n"))
		.map((line) => line.replace(/\s+#.*$/, "").trim())
		.filter((line) => line !== "" && !line.startsWith("#"));
}

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "omniloop-install-")));
const packs = join(scratch, "packs");
const prefix = join(scratch, "prefix");
const home = join(scratch, "home");
const project = join(scratch, "project");
let provider: FakeProviderServer;

/** The installed command first on PATH, and nothing of the repository (its node_modules/.bin) on it. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(ROOT));
	return { PATH: [join(prefix, "bin"), ...path].join(delimiter), HOME: home, OMNILOOP_HOME: home, ...extra };
}

function succeeded(ran: Ran, what: string): Ran {
	expect(ran.code, `${what}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
	return ran;
}

const messagesOf = (stdout: string) =>
	stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as OmniMessage);
const answersOf = (messages: OmniMessage[]) => messages.flatMap((m) => (m.type === "assistant_text" ? [m.text] : []));

beforeAll(async () => {
	mkdirSync(packs);
	mkdirSync(home);
	mkdirSync(project);
	writeFileSync(join(project, "README.md"), "# A project\n");
	provider = await FakeProviderServer.start();
	// npm's own settings from the environment: where `npm pack` writes and `npm install -g`
	// installs, and packages from npm's cache (filled by the repository's `npm ci`).
	const npmEnv = {
		...process.env,
		npm_config_pack_destination: packs,
		npm_config_prefix: prefix,
		npm_config_prefer_offline: "true",
		npm_config_audit: "false",
		npm_config_fund: "false",
		npm_config_better_sqlite3_local_prebuilds: await betterSqlitePrebuilds(ROOT, scratch),
	};
	succeeded(await shell(PACK, { cwd: ROOT, env: npmEnv }), PACK);
	succeeded(await shell(INSTALL, { cwd: packs, env: npmEnv }), INSTALL);
}, 300_000);

afterAll(async () => {
	await provider?.close();
	rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe("installing the omniloop command", () => {
	it("README's Install section is the commands this test runs, word for word", () => {
		expect(readmeInstallCommands()).toEqual([BUILD, PACK, INSTALL, VERSION_CHECK, RUN, SERVE]);
	});

	it("after npm ci and a build, the repository's own bin is linked and executable: npx omniloop --version works", async () => {
		const stub = join(ROOT, "packages/cli/bin/omniloop.js");
		expect(statSync(stub).mode & 0o111).not.toBe(0);
		expect(realpathSync(join(ROOT, "node_modules/.bin/omniloop"))).toBe(realpathSync(stub));
		const { stdout } = await promisify(execFile)(join(ROOT, "node_modules/.bin/omniloop"), ["--version"], {
			env: userEnv(),
		});
		expect(stdout.trim()).toBe(VERSION);
	});

	it("installs copies, not links to the repository; the server package carries the web app", () => {
		for (const name of ["omniloop", "@omniloop/server", "@omniloop/core"]) {
			const dir = join(prefix, "lib", "node_modules", name);
			expect(lstatSync(dir).isSymbolicLink(), name).toBe(false);
			expect(realpathSync(dir).startsWith(prefix), name).toBe(true);
		}
		expect(statSync(join(prefix, "lib/node_modules/@omniloop/server/web/index.html")).isFile()).toBe(true);
	});

	it("omniloop --version, from a folder outside the repository", async () => {
		expect((await shell("command -v omniloop", { cwd: project, env: userEnv() })).stdout.trim()).toBe(
			join(prefix, "bin", "omniloop"),
		);
		const ran = succeeded(await shell(VERSION_CHECK, { cwd: project, env: userEnv() }), VERSION_CHECK);
		expect(ran.stdout.trim()).toBe(VERSION);
	});

	it("omniloop run --json with no model configured runs the offline demo (its shell call unanswered, denied)", async () => {
		const ran = succeeded(await shell(RUN, { cwd: project, env: userEnv() }), RUN);
		expect(ran.stderr).toContain("Starting the offline demo");
		const messages = messagesOf(ran.stdout);
		expect(answersOf(messages).join("\n")).toContain('README.md begins with "# A project"');
		expect(messages.at(-1)).toMatchObject({ type: "done" });
	});

	it("omniloop run --json with an omniloop.yaml in the folder: an openai-compatible model on a provider", async () => {
		const dir = join(scratch, "configured");
		mkdirSync(dir);
		writeFileSync(
			join(dir, "omniloop.yaml"),
			[
				"models:",
				`  local: { provider: openai-compatible, model: fake-model, baseURL: "${provider.url}/v1", apiKey: "\${FAKE_KEY}" }`,
				"agents:",
				"  default_agent: { model: local }",
			].join("\n"),
		);
		provider.enqueue({ text: "Only a README is here." });
		const ran = succeeded(await shell(RUN, { cwd: dir, env: userEnv({ FAKE_KEY: "k" }) }), RUN);
		expect(ran.stderr).not.toContain("offline demo");
		const messages = messagesOf(ran.stdout);
		expect(answersOf(messages)).toEqual(["Only a README is here."]);
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});

	it("omniloop serve serves the web app and its assets from the installed package; a restart keeps the token", async () => {
		const served = join(prefix, "lib/node_modules/@omniloop/server/web");
		let server: Started | undefined = await startShell(SERVE, { cwd: project, env: userEnv() });
		try {
			const token = JSON.parse(readFileSync(join(home, "server.json"), "utf8")).token as string;
			expect(server.firstLine).toContain(token);
			const origin = new URL(server.firstLine).origin;
			// The token as the browser carries it, whichever way: a cookie or Authorization.
			const headers = { authorization: `Bearer ${token}`, cookie: `omniloop_token=${token}` };
			const page = await fetch(`${origin}/`, { headers });
			expect(page.status).toBe(200);
			const html = await page.text();
			expect(html).toBe(readFileSync(join(served, "index.html"), "utf8"));
			const assets = assetsOf(html);
			expect(assets.filter((asset) => asset.endsWith(".js")).length).toBeGreaterThan(0);
			expect(assets.filter((asset) => asset.endsWith(".css")).length).toBeGreaterThan(0);
			for (const asset of assets) {
				const response = await fetch(`${origin}${asset}`, { headers });
				expect(response.status, asset).toBe(200);
				expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(served, asset)))).toBe(true);
			}
			// Stopped as a terminal's Ctrl-C or a service manager would: it shuts down, then ends.
			expect(await server.stop()).toContain("SIGTERM: stopping");
			server = await startShell(SERVE, { cwd: project, env: userEnv() });
			expect(server.firstLine).toContain(token);
			const again = new URL(server.firstLine).origin;
			const sessions = await fetch(`${again}/chat/sessions`, { headers: { authorization: `Bearer ${token}` } });
			expect(sessions.status).toBe(200);
		} finally {
			await server?.stop();
		}
	}, 60_000);
});
