import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { cleanup, ofType, runText, shape, tempDir, tracedMessages } from "../harness.js";
import { filesHarness } from "./checkpoint-helpers.js";

afterEach(cleanup);

const script = () => [
	[callTool("write_file", { path: "a.txt", content: "one\n" })],
	[say("wrote one")],
	[callTool("write_file", { path: "a.txt", content: "two\n" })],
	[say("wrote two")],
];

describe("rewind", () => {
	it("goes back to before a person's message: the context, the files (asked for), and a resume rebuild the same", async () => {
		const { session, workspace, home, model } = await filesHarness(script());
		await runText(session, "first");
		const out = await runText(session, "second");
		const second = ofType(out, "user_text")[0];
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("two\n");
		const lastSeq = out.at(-1)?.seq ?? 0;
		const rewound = await session.rewind(second?.seq as number, { files: true });
		expect(rewound.event.type).toBe("session_rewound");
		expect(rewound.event.seq).toBeGreaterThan(lastSeq);
		expect(rewound.restore?.restored).toEqual(["a.txt"]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\n");
		expect(shape(session.context)).toEqual([
			"user:first",
			expect.stringMatching(/^call:/),
			expect.stringMatching(/^out:/),
			"assistant:wrote one",
		]);
		// The Trace keeps everything, the rewind included (append-only).
		const traced = tracedMessages(home, session.id);
		expect(traced.filter((m) => m.type === "user_text").map((m) => (m as { text: string }).text)).toEqual([
			"first",
			"second",
		]);
		expect(traced.at(-1)?.type).toBe("session_rewound");
		await session.close();
		const resumed = await (await createAgent({ agentId: "files_agent", model, home })).resumeSession(session.id);
		expect(shape(resumed.context)).toEqual(shape(session.context));
		const next = await runText(resumed, "third");
		expect(Math.min(...next.map((m) => m.seq))).toBeGreaterThan(rewound.event.seq);
	});

	it("a resume after a rewind keeps the Session's usage: the rewind takes back messages, not tokens spent", async () => {
		const turn = (text: string) => [reportUsage({ input: 10, output: 5, total: 15 }), say(text)];
		const { session, home, model } = await filesHarness([turn("one"), turn("two"), turn("three")]);
		await runText(session, "first");
		const out = await runText(session, "second");
		const sessionUsage = (messages: readonly OmniMessage[]) => ofType(messages, "token_usage").at(-1)?.session;
		const before = sessionUsage(out);
		expect(before).toMatchObject({ input: 20, output: 10, total: 30 });
		await session.rewind(ofType(out, "user_text")[0]?.seq as number);
		await session.close();
		const settings = { compaction: { mode: "discard" as const } };
		const resumed = await (await createAgent({ agentId: "files_agent", model, home, settings })).resumeSession(
			session.id,
		);
		expect(sessionUsage(await runText(resumed, "third"))).toMatchObject({ input: 30, output: 15, total: 45 });
		// The turn count too: a compaction's new Trace file records the turns made before it.
		for await (const _ of resumed.compact()) {
		}
		const [headerLine = "{}"] = readFileSync(join(sessionDir(home, session.id), traceFileName(2)), "utf8").split("\n");
		expect((JSON.parse(headerLine) as { turnsBefore?: number }).turnsBefore).toBe(3);
	});

	it("refuses a seq that is not a person's message, with the seq named", async () => {
		const { session } = await filesHarness([[say("hi")]]);
		const out = await runText(session, "hello");
		const reply = ofType(out, "assistant_text")[0];
		await expect(session.rewind(reply?.seq as number)).rejects.toThrow(`seq ${reply?.seq} is not a person's message`);
	});
});

describe("forkSession", () => {
	it("a new Session with the history before the message, its own Trace, its parent named, and the files of that point in a new folder", async () => {
		const { session, agent, workspace, home } = await filesHarness(script());
		await runText(session, "first");
		const out = await runText(session, "second");
		const second = ofType(out, "user_text")[0]?.seq as number;
		writeFileSync(join(workspace, "later.txt"), "after the fork point? no: made by hand now\n");
		const dir = join(tempDir("omniloop-fork-"), "copy");
		const fork = await agent.forkSession(session.id, second, { workspaceDir: dir });
		expect(fork.id).not.toBe(session.id);
		expect(fork.parent).toEqual({ sessionId: session.id, seq: second });
		expect(fork.workspaceDir).toBe(dir);
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
		expect(existsSync(join(dir, "later.txt"))).toBe(false);
		expect(shape(fork.context).at(0)).toBe("user:first");
		expect(shape(fork.context).at(-1)).toBe("assistant:wrote one");
		// The parent is untouched; the fork has its own Trace and goes on from there.
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("two\n");
		expect(tracedMessages(home, fork.id).filter((m) => m.type === "user_text")).toHaveLength(1);
		const model = new ScriptedModel([[say("forked")]]);
		const other = await createAgent({ agentId: "files_agent", model, home });
		const resumed = await other.resumeSession(fork.id);
		await runText(resumed, "go on");
		expect(shape(model.requests[0]?.messages ?? []).slice(0, 1)).toEqual(["user:first"]);
	});

	it("a fork into a new folder says which of the parent's files it did not get, and why: too big, ignored, a nested repository", async () => {
		const { session, agent, workspace } = await filesHarness(script(), { checkpoints: { maxFileBytes: 1000 } });
		writeFileSync(join(workspace, ".gitignore"), "node_modules/\n.env\n");
		writeFileSync(join(workspace, ".env"), "KEY=1\n");
		mkdirSync(join(workspace, "node_modules", "x"), { recursive: true });
		writeFileSync(join(workspace, "node_modules", "x", "i.js"), "1");
		writeFileSync(join(workspace, "big.bin"), Buffer.alloc(5000, 1));
		mkdirSync(join(workspace, "lib", "sub"), { recursive: true });
		execFileSync("git", ["init", "-q"], { cwd: join(workspace, "lib", "sub") });
		writeFileSync(join(workspace, "lib", "sub", "s.txt"), "nested\n");
		await runText(session, "first");
		const out = await runText(session, "second");
		const second = ofType(out, "user_text")[0]?.seq as number;
		const dir = join(tempDir("omniloop-fork-"), "copy");
		const fork = await agent.forkSession(session.id, second, { workspaceDir: dir });
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
		expect(existsSync(join(dir, ".env"))).toBe(false);
		expect([...fork.leftOut].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
			{ path: ".env", reason: "ignored" },
			{ path: "big.bin", reason: "too_big", bytes: 5000 },
			{ path: "lib/sub/", reason: "nested_repository" },
			{ path: "node_modules/", reason: "ignored" },
		]);
		// A fork that shares the workspace leaves nothing out.
		expect((await agent.forkSession(session.id, second)).leftOut).toEqual([]);
	});
});
