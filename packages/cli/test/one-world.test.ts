import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readFrames } from "@omniloop/client";
import { type OmniMessage, SessionStore } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { type CliFixture, useFixtures } from "./cli-harness.js";
import { useTerminals } from "./tmux-harness.js";

const start = useFixtures();
const terminal = useTerminals();

const shellCall = (id: string, command: string) => ({ id, name: "shell", arguments: { command } });

interface Listed {
	id: string;
	status: string;
	usage: { total: number };
}

/** `omniloop serve` on a free port for the fixture's home, and a caller of its API with its token. */
async function serve(f: CliFixture) {
	const server = f.start(["serve", "--port", "0"]);
	const url = new URL((await server.waitFor(/^http:\/\/\S+\n/, "stdout", 20_000)).trim());
	const token = url.hash.replace("#token=", "");
	const api = (path: string, signal?: AbortSignal) =>
		fetch(new URL(path, url.origin), { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
	const post = (path: string, json: unknown) =>
		fetch(new URL(path, url.origin), {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
			body: JSON.stringify(json),
		});
	const sessions = async () => ((await (await api("/chat/sessions")).json()) as { sessions: Listed[] }).sessions;
	return { server, api, post, sessions };
}

/** The pid of a process that has ended (a stale server.json's). */
async function deadPid(): Promise<number> {
	const child = spawn(process.execPath, ["-e", ""]);
	await new Promise((resolve) => child.once("exit", resolve));
	return child.pid as number;
}

describe("one world: the CLI attaches to the local server of its home", () => {
	it("omniloop run is a Session of the running server: listed, streamed to a viewer, its approval asked at the terminal", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [shellCall("call_sh_1", "echo attached > seen.txt")] }, { text: "Ran it there." });
		const { api, sessions } = await serve(f);
		const cli = f.start(["run", "write a file"]);
		await cli.waitFor("attached to omniloop serve at", "stderr");
		await cli.waitFor("Allow shell `echo attached > seen.txt`?", "stderr");

		const listed = await sessions();
		expect(listed.map((s) => s.status)).toEqual(["waiting_approval"]);
		const id = (listed[0] as Listed).id;
		const viewer = new AbortController();
		const events = await api(`/chat/sessions/${id}/events?after=0`, viewer.signal);
		const seen: OmniMessage[] = [];
		const watching = (async () => {
			for await (const { data: message } of readFrames<OmniMessage>(events.body as ReadableStream<Uint8Array>)) {
				seen.push(message);
				if (message.type === "done") return;
			}
		})();
		cli.write("y\n");
		await watching;
		viewer.abort();

		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stdout).toContain("Ran it there.");
		expect(readFileSync(join(f.workspace, "seen.txt"), "utf8")).toBe("attached\n");
		const types: string[] = seen.filter((m) => m.origin === undefined).map((m) => m.type);
		const order = ["user_text", "confirmation_required", "approval_decision", "tool_call_output", "done"];
		expect(order.map((type) => types.indexOf(type))).toEqual(
			[...order.map((type) => types.indexOf(type))].sort((a, b) => a - b),
		);
		expect(seen.find((m) => m.type === "approval_decision")).toMatchObject({ decision: "allow", by: "user" });
		// The server wrote the Trace, in the shared home; the CLI says how to continue it.
		expect(existsSync(join(f.home, "sessions", id))).toBe(true);
		expect(cli.output.stderr).toContain(`Session ${id}`);
		await expect.poll(async () => (await sessions()).map((s) => s.status)).toEqual(["idle"]);
	});

	it("the terminal UI attached: its approval box shows, and an answer from another viewer (the browser) closes it", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "config.txt"), "port: 8080\n");
		f.server.enqueue(
			{
				toolCalls: [
					{
						id: "call_e",
						name: "edit_file",
						arguments: { path: "config.txt", old_string: "port: 8080", new_string: "port: 9090" },
					},
				],
			},
			{ text: "Changed the port." },
		);
		const { api, post, sessions } = await serve(f);
		const t = await terminal(f, ["chat"]);
		await t.waitFor("attached to omniloop serve");
		await t.waitFor("Enter sends ·");
		await t.type("change the port");
		await t.press("Enter");
		await t.waitFor("a always allow this tool");
		const [listed] = await sessions();
		expect(listed?.status).toBe("waiting_approval");
		const id = (listed as Listed).id;
		const detail = (await (await api(`/chat/sessions/${id}`)).json()) as {
			pendingConfirmations: { correlationId: string }[];
		};
		const correlationId = detail.pendingConfirmations[0]?.correlationId;
		const answered = await post(`/chat/sessions/${id}/ask-user-response`, { correlationId, decision: "allow" });
		expect(answered.status).toBe(200);
		const screen = await t.waitFor("Changed the port.");
		expect(screen).not.toContain("a always allow this tool");
		expect(readFileSync(join(f.workspace, "config.txt"), "utf8")).toBe("port: 9090\n");
	});

	it("Ctrl-C in an attached run aborts the Task on the server: done user_abort, exit 130, the Session idle again", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [{ id: "call_slow", name: "shell", arguments: { command: "sleep 20" } }] });
		const { sessions } = await serve(f);
		const cli = f.start(["--yes", "--json", "run", "wait a while"]);
		await cli.waitFor(/"type":"tool_start"/, "stdout");
		expect((await sessions()).map((s) => s.status)).toEqual(["busy"]);
		cli.signal("SIGINT");
		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(130);
		expect(JSON.parse(cli.stdoutLines.at(-1) ?? "{}")).toMatchObject({ type: "done", reason: "user_abort" });
		// The server ends the Task just after its done is streamed.
		await expect.poll(async () => (await sessions()).map((s) => s.status)).toEqual(["idle"]);
	});

	it("sessions rename and delete go through the running server: its list follows", async () => {
		const f = await start();
		f.server.enqueue({ text: "Served." });
		const { sessions } = await serve(f);
		const ran = await f.run(["run", "hello"]);
		expect(ran.exit.code, ran.cli.transcript()).toBe(0);
		const [listed] = await sessions();
		const id = (listed as Listed & { title: string }).id;
		const renamed = await f.run(["sessions", "rename", id, "Named from the terminal"]);
		expect(renamed.exit.code, renamed.cli.transcript()).toBe(0);
		expect((await sessions()).map((s) => (s as Listed & { title: string }).title)).toEqual(["Named from the terminal"]);
		const found = await f.run(["sessions", "search", "served"]);
		expect(found.cli.stdoutLines).toEqual([`${id}  Named from the terminal`, "    Served."]);
		const deleted = await f.run(["--yes", "sessions", "delete", id]);
		expect(deleted.exit.code, deleted.cli.transcript()).toBe(0);
		expect(await sessions()).toEqual([]);
	});

	it("sessions rename and delete of a Session the server does not host (made outside its roots) act on the home", async () => {
		const f = await start();
		f.server.enqueue({ text: "Made elsewhere." });
		const { sessions } = await serve(f);
		const elsewhere = join(f.home, "elsewhere");
		mkdirSync(elsewhere);
		const made = f.startIn(elsewhere, ["--config-dir", f.configDir, "--local", "run", "hello"]);
		made.endInput();
		expect((await made.waitForExit()).code, made.transcript()).toBe(0);
		const id = /Session ([0-9a-f-]{36})/.exec(made.output.stderr)?.[1] as string;
		const renamed = await f.run(["sessions", "rename", id, "Named here"]);
		expect(renamed.exit.code, renamed.cli.transcript()).toBe(0);
		expect(new SessionStore(f.home).list().find((s) => s.sessionId === id)?.title).toBe("Named here");
		const deleted = await f.run(["--yes", "sessions", "delete", id]);
		expect(deleted.exit.code, deleted.cli.transcript()).toBe(0);
		expect(new SessionStore(f.home).list().map((s) => s.sessionId)).not.toContain(id);
		expect(await sessions()).toEqual([]);
	});

	it("--local runs in-process even with a server up: the server does not list its Session", async () => {
		const f = await start();
		f.server.enqueue({ text: "Local answer." });
		const { sessions } = await serve(f);
		const { cli, exit } = await f.run(["run", "--local", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stdout).toContain("Local answer.");
		expect(cli.output.stderr).not.toContain("attached");
		expect(new SessionStore(f.home).list()).toHaveLength(1);
		expect(await sessions()).toEqual([]);
	});

	it("--config-dir naming another folder than the server's runs in-process, saying why", async () => {
		const f = await start();
		f.server.enqueue({ text: "Answered from the other config." });
		const { sessions } = await serve(f);
		const other = join(f.home, "other-config");
		mkdirSync(other);
		copyFileSync(join(f.configDir, "omniloop.yaml"), join(other, "omniloop.yaml"));
		const { cli, exit } = await f.run(["--config-dir", other, "run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toContain(`--config-dir ${other} is not the server's (it reads ${f.configDir})`);
		expect(cli.output.stdout).toContain("Answered from the other config.");
		expect(await sessions()).toEqual([]);
	});

	it("a second omniloop serve on the same SQLite home is refused, naming the running one", async () => {
		const f = await start();
		const { sessions } = await serve(f);
		const second = await f.run(["serve", "--port", "0"]);
		expect(second.exit.code, second.cli.transcript()).toBe(2);
		expect(second.cli.output.stderr).toContain(`another omniloop serve runs on ${f.home}`);
		// The first goes on serving.
		expect(await sessions()).toEqual([]);
	});

	it("a stale server.json (its pid dead) runs in-process", async () => {
		const f = await start();
		f.server.enqueue({ text: "No server needed." });
		const record = { token: "stale", url: "http://127.0.0.1:9/", pid: await deadPid() };
		writeFileSync(join(f.home, "server.json"), JSON.stringify(record), { mode: 0o600 });
		const { cli, exit } = await f.run(["run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stdout).toContain("No server needed.");
		expect(cli.output.stderr).not.toContain("attached");
		expect(new SessionStore(f.home).list()).toHaveLength(1);
	});

	it("a server started after an in-process chat lists its Session with the usage the CLI counted", async () => {
		const f = await start();
		f.server.enqueue({ text: "Counted." });
		const { cli, exit } = await f.run(["run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const [made] = new SessionStore(f.home).list();
		expect(made?.usage.total).toBeGreaterThan(0);
		const { sessions } = await serve(f);
		const listed = await sessions();
		expect(listed.map((s) => [s.id, s.usage.total])).toEqual([[made?.sessionId, made?.usage.total]]);
	});
});
