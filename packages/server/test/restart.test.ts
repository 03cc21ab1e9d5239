import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { OmniMessage } from "@omniloop/core";
import { FakeProviderServer } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { bearerApi } from "./bearer-api.js";
import { eventually, messagesOf, onCleanup, readFrames, tempDirs, writeFakeModelConfig } from "./harness.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
const TOKEN = "restart-token";

interface Served {
	child: ChildProcess;
	origin: string;
	api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** Runs the built `omniloop serve` on a free port and resolves with the URL of its first stdout line. */
async function serve(home: string, root: string, lines: string[] = []): Promise<Served> {
	const child = spawn(process.execPath, [CLI, "--config-dir", root, "serve", "--port", "0"], {
		cwd: root,
		env: { PATH: process.env.PATH, HOME: home, OMNILOOP_HOME: home, OMNILOOP_TOKEN: TOKEN, FAKE_KEY: "k" },
		stdio: ["ignore", "pipe", "pipe"],
	});
	onCleanup(() => {
		child.kill("SIGKILL");
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		const input = createInterface({ input: child.stdout as NodeJS.ReadableStream });
		input.on("line", (line) => lines.push(line));
		input.once("line", resolve);
		child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
	});
	const url = new URL(firstLine);
	expect(url.hash).toBe(`#token=${TOKEN}`);
	const origin = url.origin;
	const api = bearerApi(origin, TOKEN);
	return { child, origin, api };
}

function exited(child: ChildProcess): Promise<number | null> {
	return new Promise((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
		else child.once("exit", (code) => resolve(code));
	});
}

async function project() {
	const provider = await FakeProviderServer.start();
	onCleanup(() => provider.close());
	const dirs = tempDirs();
	writeFakeModelConfig(dirs.root, provider.url);
	writeFileSync(join(dirs.root, "notes.txt"), "hello\n");
	return { provider, ...dirs };
}

async function sessionState(served: Served, id: string) {
	const body = (await (await served.api(`/chat/sessions/${id}`)).json()) as {
		session: { id: string; status: string };
		messages: OmniMessage[];
	};
	const usage = (await (await served.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: unknown[] };
	return { ...body, usage: usage.rows };
}

describe("omniloop serve", () => {
	it("with no model configured says it serves the offline demo in its first lines, after the URL", async () => {
		const { home, root } = tempDirs();
		const lines: string[] = [];
		const served = await serve(home, root, lines);
		await eventually(() => (lines.length >= 2 ? true : undefined));
		expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=restart-token$/);
		expect(lines[1]).toContain("offline demo");
		const agents = (await (await served.api("/agents")).json()) as { demo: boolean };
		expect(agents.demo).toBe(true);
	});
});

describe("Sessions survive the server", () => {
	it("kill -9 during a Task: after a restart the Session is listed, its history and usage rows are there, and it takes a new message", async () => {
		const { provider, home, root } = await project();
		const first = await serve(home, root);
		const id = ((await (await first.api("/chat/sessions", { method: "POST", json: {} })).json()) as { id: string }).id;
		provider.enqueue(
			{ toolCalls: [{ name: "list_dir", arguments: {} }], usage: { input: 30, output: 6 } },
			{ text: ["never", " finished"], fault: { kind: "stall", afterEvents: 2 } },
		);
		await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "look around" } });
		// The second request is in flight (stalled) once the provider has seen it.
		await eventually(() => (provider.requests.length === 2 ? true : undefined));
		const before = await eventually(async () => {
			const state = await sessionState(first, id);
			return state.usage.length === 1 && state.messages.some((m) => m.type === "tool_call_output") ? state : undefined;
		});
		first.child.kill("SIGKILL");
		await exited(first.child);

		const second = await serve(home, root);
		const list = (await (await second.api("/chat/sessions")).json()) as { sessions: { id: string; status: string }[] };
		expect(list.sessions.map((s) => [s.id, s.status])).toEqual([[id, "idle"]]);
		const after = await sessionState(second, id);
		expect(after.usage).toEqual(before.usage);
		// Everything flushed before the kill is still there, in order.
		const flushed = before.messages.filter(
			(m) => m.type !== "request_begin" || m.seq < (before.messages.at(-1)?.seq ?? 0),
		);
		expect(after.messages.slice(0, flushed.length).map((m) => m.seq)).toEqual(flushed.map((m) => m.seq));

		provider.enqueue({ text: "resumed fine", usage: { input: 40, output: 3 } });
		const messages = messagesOf(
			(await readFrames(await second.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go on" } })))
				.frames,
		);
		expect(messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: "resumed fine" });
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		const lastSeqBefore = after.messages.at(-1)?.seq ?? 0;
		expect((messages[0] as OmniMessage).seq).toBeGreaterThan(lastSeqBefore);
		await eventually(async () => ((await sessionState(second, id)).usage.length === 2 ? true : undefined));
	});

	it("a rewound Session reopened by a fresh server process: its history ends in the rewind, and the model gets the rewound context", async () => {
		const { provider, home, root } = await project();
		const first = await serve(home, root);
		const id = ((await (await first.api("/chat/sessions", { method: "POST", json: {} })).json()) as { id: string }).id;
		provider.enqueue({ text: "reply one" }, { text: "reply two" });
		for (const text of ["keep this", "take this back"]) {
			await readFrames(await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text } }));
		}
		const before = await sessionState(first, id);
		const taken = before.messages.find((m) => m.type === "user_text" && m.text === "take this back");
		const rewound = await first.api(`/chat/sessions/${id}/rewind`, { method: "POST", json: { seq: taken?.seq } });
		expect(rewound.status).toBe(200);
		first.child.kill("SIGTERM");
		expect(await exited(first.child)).toBe(0);

		const second = await serve(home, root);
		const { messages } = await sessionState(second, id);
		// The history is the Trace's, append-only: the rewind last, naming what it took back.
		expect(messages.slice(0, -1).map((m) => m.seq)).toEqual(before.messages.map((m) => m.seq));
		expect(messages.at(-1)).toMatchObject({ type: "session_rewound", toSeq: taken?.seq });
		provider.enqueue({ text: "after the rewind" });
		await readFrames(await second.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "next" } }));
		const sent = provider.requests.at(-1)?.rawBody ?? "";
		expect(sent).toContain("keep this");
		expect(sent).toContain("reply one");
		expect(sent).toContain("next");
		expect(sent).not.toContain("take this back");
		expect(sent).not.toContain("reply two");
	});

	it("SIGTERM aborts the running Task cleanly: done user_abort in the Trace (saying the server shut down, not the person), exit 0, the Session resumes", async () => {
		const { provider, home, root } = await project();
		const first = await serve(home, root);
		const id = ((await (await first.api("/chat/sessions", { method: "POST", json: {} })).json()) as { id: string }).id;
		provider.enqueue({ text: ["half"], fault: { kind: "stall", afterEvents: 2 } });
		await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "slow" } });
		await eventually(() => (provider.requests.length === 1 ? true : undefined));
		first.child.kill("SIGTERM");
		expect(await exited(first.child)).toBe(0);

		const second = await serve(home, root);
		const { messages } = await sessionState(second, id);
		expect(messages.slice(-2).map((m) => m.type)).toEqual(["abort", "done"]);
		expect(messages.at(-1)).toMatchObject({
			reason: "user_abort",
			error: { kind: "host_stop", message: "the server shut down" },
		});
		provider.enqueue({ text: "after restart" });
		const resumed = messagesOf(
			(await readFrames(await second.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } })))
				.frames,
		);
		expect(resumed.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});
});
