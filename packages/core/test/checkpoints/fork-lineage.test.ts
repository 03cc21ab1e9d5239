import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointError } from "../../src/checkpoints/git-runner.js";
import { RunInputError } from "../../src/engine/session/errors.js";
import type { Session } from "../../src/engine/session/session.js";
import { callTool, say } from "../../src/model/scripted.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import { cleanup, ofType, runText, tempDir } from "../harness.js";
import { filesHarness } from "./checkpoint-helpers.js";

afterEach(cleanup);

const write = (content: string) => [[callTool("write_file", { path: "a.txt", content })], [say(`wrote ${content}`)]];

/** A Session that wrote a.txt three times, one turn each, and a fork of it before its third message, in its own folder. */
async function forked() {
	const harness = await filesHarness([...write("one\n"), ...write("two\n"), ...write("three\n")]);
	const seqs: number[] = [];
	for (const text of ["first", "second", "third"]) {
		seqs.push(ofType(await runText(harness.session, text), "user_text")[0]?.seq as number);
	}
	const forkDir = join(tempDir("omniloop-fork-"), "f1");
	const fork = await harness.agent.forkSession(harness.session.id, seqs[2] as number, { workspaceDir: forkDir });
	return { ...harness, fork, forkDir };
}

function seqOf(session: Session, text: string): number {
	const found = session.context.find((m) => m.type === "user_text" && m.text === text);
	return found?.seq as number;
}

const a = (dir: string) => readFileSync(join(dir, "a.txt"), "utf8");

describe("a fork's inherited history keeps its files", () => {
	it("a fork of a fork at an inherited message gets the files the first Session had there", async () => {
		const { agent, fork, forkDir } = await forked();
		expect(a(forkDir)).toBe("two\n");
		const dir = join(tempDir("omniloop-fork-"), "f2");
		await agent.forkSession(fork.id, seqOf(fork, "second"), { workspaceDir: dir });
		expect(a(dir)).toBe("one\n");
	});

	it("a rewind with files inside a fork, to an inherited message, restores the parent's checkpoint of it", async () => {
		const { fork, forkDir } = await forked();
		const rewound = await fork.rewind(seqOf(fork, "second"), { files: true });
		expect(rewound.restore?.restored).toEqual(["a.txt"]);
		expect(a(forkDir)).toBe("one\n");
		// The restore is undoable like any other: its own checkpoint holds the files before it.
		expect((await fork.checkpoints()).map((c) => c.reason)).toEqual(["restore"]);
	});

	it("after the fork's own turns, a rewind to an inherited message still goes to the parent's files there", async () => {
		const { fork, forkDir, model } = await forked();
		model.push([callTool("write_file", { path: "a.txt", content: "four\n" })], [say("wrote four")]);
		await runText(fork, "fourth");
		expect(a(forkDir)).toBe("four\n");
		await fork.rewind(seqOf(fork, "first"), { files: true });
		expect(() => a(forkDir)).toThrow(/ENOENT/);
	});

	it("a rewind with files in a fork sharing the folder keeps a file the person made since, as a conflict", async () => {
		const { agent, session, workspace } = await forked();
		const fork = await agent.forkSession(session.id, seqOf(session, "third"));
		writeFileSync(join(workspace, "person.txt"), "mine\n");
		const rewound = await fork.rewind(seqOf(fork, "first"), { files: true });
		expect([rewound.restore?.restored, rewound.restore?.conflicts]).toEqual([["a.txt"], ["person.txt"]]);
		expect(readFileSync(join(workspace, "person.txt"), "utf8")).toBe("mine\n");
		expect(() => a(workspace)).toThrow(/ENOENT/);
	});

	it("a rewind with files in a fork's own folder keeps a file the person made there since, as a conflict", async () => {
		const { fork, forkDir } = await forked();
		writeFileSync(join(forkDir, "person.txt"), "mine\n");
		const rewound = await fork.rewind(seqOf(fork, "second"), { files: true });
		expect([rewound.restore?.restored, rewound.restore?.conflicts]).toEqual([["a.txt"], ["person.txt"]]);
		expect(a(forkDir)).toBe("one\n");
		expect(readFileSync(join(forkDir, "person.txt"), "utf8")).toBe("mine\n");
	});

	it("refuses, naming the parent, when the parent's Trace is gone", async () => {
		const { fork, forkDir, home, session } = await forked();
		rmSync(sessionDir(home, session.id), { recursive: true });
		const rewinding = fork.rewind(seqOf(fork, "second"), { files: true });
		await expect(rewinding).rejects.toThrow(CheckpointError);
		await expect(rewinding).rejects.toThrow(`fork of Session ${session.id}, whose Trace`);
		expect(a(forkDir)).toBe("two\n");
	});
});

describe("a fork's folder and its parent's workspace", () => {
	it("refuses a fork folder inside the parent's workspace, or the parent's inside it, naming both", async () => {
		const { agent, session, workspace } = await forked();
		const second = seqOf(session, "second");
		const inside = join(workspace, "fork");
		await expect(agent.forkSession(session.id, second, { workspaceDir: inside })).rejects.toThrow(
			`workspaceDir ${inside} and the parent's workspace ${workspace} must not lie one inside the other`,
		);
		expect(() => readFileSync(join(inside, "a.txt"))).toThrow(/ENOENT/);
		// The parent's undo has nothing of a fork's to delete.
		await session.undo({ overwrite: true });
		expect(a(workspace)).toBe("two\n");
	});

	it("refuses the parent's own (empty) workspace as the fork folder", async () => {
		const { agent, session, workspace } = await filesHarness([[say("hi")]]);
		await runText(session, "first");
		await expect(agent.forkSession(session.id, seqOf(session, "first"), { workspaceDir: workspace })).rejects.toThrow(
			RunInputError,
		);
	});
});

describe("a fork's inherited notes of cut outputs", () => {
	it("name files of the Sessions it was forked from, which read_file reads in the fork (a fork of a fork too); another Session's, and what the parent saved after the fork, stay out of reach", async () => {
		const grep = [[callTool("grep", { pattern: "z{10}" })], [say("searched")]];
		const harness = await filesHarness([...grep, ...write("one\n"), ...write("two\n")]);
		writeFileSync(
			join(harness.workspace, "wide.txt"),
			Array.from({ length: 600 }, (_, i) => `${i} ${"z".repeat(300)}`).join("\n"),
		);
		const cut = ofType(await runText(harness.session, "search"), "tool_call_output")[0]?.output ?? "";
		const saved = /the full output is in (\S+) \(read_file reads it/.exec(cut)?.[1] as string;
		expect(saved.startsWith(sessionDir(harness.home, harness.session.id))).toBe(true);
		await runText(harness.session, "write");
		await runText(harness.session, "write again");
		// Each a fork before a later message: the note of the cut output is in its inherited history.
		const fork = await harness.agent.forkSession(harness.session.id, seqOf(harness.session, "write again"));
		const forkOfFork = await harness.agent.forkSession(fork.id, seqOf(fork, "write"));
		const unrelated = await harness.agent.createSession({ workspaceDir: harness.workspace });
		const readSaved = [[callTool("read_file", { path: saved, offset: 500, limit: 1 })], [say("read")]];
		harness.model.push(...readSaved, ...readSaved, ...readSaved);
		for (const session of [fork, forkOfFork]) {
			const [read] = ofType(await runText(session, "read it"), "tool_call_output");
			expect(read).toMatchObject({ status: "ok", output: expect.stringMatching(/^\s*500\twide\.txt:500: 499 z+$/m) });
		}
		const [refused] = ofType(await runText(unrelated, "read it"), "tool_call_output");
		expect(refused?.status).toBe("error");
		// What the parent saved after the forks were made is not in their history: theirs to read, not the forks'.
		harness.model.push([callTool("grep", { pattern: "z{10}" }, "late")], [say("searched")]);
		const laterCut = ofType(await runText(harness.session, "search again"), "tool_call_output")[0]?.output ?? "";
		const later = /the full output is in (\S+) \(read_file reads it/.exec(laterCut)?.[1] as string;
		expect(later).toMatch(/late\.txt$/);
		harness.model.push([callTool("read_file", { path: later, offset: 500, limit: 1 })], [say("read")]);
		const [notInHistory] = ofType(await runText(fork, "read the later one"), "tool_call_output");
		expect(notInHistory?.status).toBe("error");
	});
});
