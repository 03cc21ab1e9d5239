import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, ofType } from "../harness.js";
import { filesHarness, prompt, toolTurn } from "./checkpoint-helpers.js";

// Long enough to remove the 10,000-file workspace on a loaded machine.
afterEach(cleanup, 120_000);

describe("checkpoints and undo on real files", () => {
	it("undo after write_file: a new file goes, and the undo is a checkpoint of its own that restores it again", async () => {
		const { session, workspace } = await filesHarness(toolTurn("write_file", { path: "a.txt", content: "new\n" }));
		writeFileSync(join(workspace, "keep.txt"), "kept\n");
		const out = await prompt(session, "write a");
		expect(ofType(out, "checkpoint_created").map((c) => c.reason)).toEqual(["turn"]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("new\n");
		const undone = await session.undo();
		expect(undone.restored).toEqual(["a.txt"]);
		expect(undone.conflicts).toEqual([]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("kept\n");
		expect(undone.events.map((e) => e.type)).toEqual(["checkpoint_created", "checkpoint_restored"]);
		// Restore of the restore: the checkpoint made before the undo brings the file back.
		const redone = await session.restore(undone.before);
		expect(redone.restored).toEqual(["a.txt"]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("new\n");
	});

	it("undo after edit_file puts the old text back; the diff shows what the restore would do first", async () => {
		const { session, workspace } = await filesHarness(
			toolTurn("edit_file", { path: "b.txt", old_string: "old", new_string: "edited" }),
		);
		writeFileSync(join(workspace, "b.txt"), "one old line\n");
		await prompt(session, "edit b");
		expect(readFileSync(join(workspace, "b.txt"), "utf8")).toBe("one edited line\n");
		const [checkpoint] = await session.checkpoints();
		const preview = await session.checkpointDiff(checkpoint?.id as string);
		expect(preview.map((f) => [f.path, f.status])).toEqual([["b.txt", "modified"]]);
		expect(preview[0]?.diff).toContain("-one edited line");
		expect(preview[0]?.diff).toContain("+one old line");
		const changed = await session.filesChanged();
		expect(changed.map((f) => f.path)).toEqual(["b.txt"]);
		expect(changed[0]?.diff).toContain("+one edited line");
		await session.undo();
		expect(readFileSync(join(workspace, "b.txt"), "utf8")).toBe("one old line\n");
	});

	it("a credential value in a changed file is redacted in the diffs, as in the stream; the file keeps it", async () => {
		const KEY = "sk-live-0123456789abcdefXYZ";
		const { session, workspace } = await filesHarness(
			toolTurn("write_file", { path: "config.py", content: `API_KEY = "${KEY}"\n` }),
			{ secrets: () => [KEY] },
		);
		await prompt(session, "write the config");
		expect(readFileSync(join(workspace, "config.py"), "utf8")).toContain(KEY);
		const [checkpoint] = await session.checkpoints();
		const preview = await session.checkpointDiff(checkpoint?.id as string);
		const changed = await session.filesChanged();
		for (const files of [preview, changed]) {
			expect(JSON.stringify(files)).not.toContain(KEY);
			expect(files[0]?.diff).toContain('API_KEY = "[redacted]"');
		}
	});

	it("undo after a shell that deletes a file, and after one that creates many (in new folders)", async () => {
		const { session, workspace } = await filesHarness([
			[{ type: "tool_call", name: "shell", args: { command: "rm gone.txt" } }],
			[{ type: "text", text: "deleted" }],
			[
				{
					type: "tool_call",
					name: "shell",
					args: { command: "mkdir -p d/e && for i in $(seq 1 50); do echo $i > d/e/f$i.txt; done" },
				},
			],
			[{ type: "text", text: "made" }],
		]);
		writeFileSync(join(workspace, "gone.txt"), "precious\n");
		await prompt(session, "delete it");
		expect(existsSync(join(workspace, "gone.txt"))).toBe(false);
		await prompt(session, "make many");
		expect(readdirSync(join(workspace, "d/e"))).toHaveLength(50);
		const first = await session.undo();
		expect(first.restored).toHaveLength(50);
		expect(existsSync(join(workspace, "d"))).toBe(false);
		expect(existsSync(join(workspace, "gone.txt"))).toBe(false);
		// The next undo goes one turn further back.
		const second = await session.undo();
		expect(second.restored).toEqual(["gone.txt"]);
		expect(readFileSync(join(workspace, "gone.txt"), "utf8")).toBe("precious\n");
	});

	it("a file changed outside the agent since is a conflict: kept, unless overwrite", async () => {
		const { session, workspace } = await filesHarness([
			[{ type: "tool_call", name: "write_file", args: { path: "a.txt", content: "agent\n" } }],
			[{ type: "tool_call", name: "write_file", args: { path: "b.txt", content: "agent\n" } }],
			[{ type: "text", text: "done" }],
		]);
		await prompt(session, "write");
		writeFileSync(join(workspace, "b.txt"), "person\n");
		const all = await session.checkpoints();
		const first = all[0];
		// The preview says beforehand what the restore will keep.
		const preview = await session.checkpointDiff(first?.id as string);
		expect(preview.map((f) => [f.path, f.conflict ?? false])).toEqual([
			["a.txt", false],
			["b.txt", true],
		]);
		expect(await session.undoTarget()).toEqual(all.at(-1));
		const kept = await session.restore(first?.id as string);
		expect(kept.conflicts).toEqual(["b.txt"]);
		expect(kept.restored).toEqual(["a.txt"]);
		expect(readFileSync(join(workspace, "b.txt"), "utf8")).toBe("person\n");
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		const forced = await session.restore(kept.checkpointId, { overwrite: true });
		expect(forced.restored).toEqual(["b.txt"]);
		expect(existsSync(join(workspace, "b.txt"))).toBe(false);
	});

	it("an undo that kept every file as a conflict leaves the undo point where it was", async () => {
		const { session, workspace } = await filesHarness([
			...toolTurn("write_file", { path: "a.txt", content: "one\n" }),
			...toolTurn("write_file", { path: "a.txt", content: "two\n" }),
		]);
		await prompt(session, "first");
		await prompt(session, "second");
		writeFileSync(join(workspace, "a.txt"), "person\n");
		const second = (await session.checkpoints()).at(-1);
		const kept = await session.undo();
		expect([kept.restored, kept.conflicts]).toEqual([[], ["a.txt"]]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("person\n");
		// Nothing was undone: the next undo is the same turn's, and overwriting goes back to "one".
		expect((await session.undoTarget())?.id).toBe(second?.id);
		await session.undo({ overwrite: true });
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\n");
	});

	it("a turn that only reads makes no checkpoint", async () => {
		const { session, workspace } = await filesHarness(toolTurn("read_file", { path: "r.txt" }));
		writeFileSync(join(workspace, "r.txt"), "read me\n");
		const out = await prompt(session, "read");
		expect(ofType(out, "checkpoint_created")).toEqual([]);
		expect(await session.checkpoints()).toEqual([]);
	});

	it("a workspace that is a git repository: its .git is untouched, byte for byte; .gitignore is honoured", async () => {
		const { tempDir } = await import("../harness.js");
		const workspace = tempDir("omniloop-repo-");
		const git = (...args: string[]) =>
			execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: workspace, stdio: "pipe" });
		git("init", "-q");
		writeFileSync(join(workspace, ".gitignore"), "ignored/\n");
		writeFileSync(join(workspace, "tracked.txt"), "v1\n");
		git("add", ".");
		git("commit", "-q", "-m", "first");
		mkdirSync(join(workspace, "ignored"));
		writeFileSync(join(workspace, "ignored/big.bin"), "x");
		const before = snapshotDir(join(workspace, ".git"));
		const { session } = await filesHarness(toolTurn("write_file", { path: "tracked.txt", content: "v2\n" }), {
			workspace,
		});
		await prompt(session, "change it");
		writeFileSync(join(workspace, "ignored/big.bin"), "y");
		const undone = await session.undo();
		expect(undone.restored).toEqual(["tracked.txt"]);
		expect(readFileSync(join(workspace, "tracked.txt"), "utf8")).toBe("v1\n");
		expect(readFileSync(join(workspace, "ignored/big.bin"), "utf8")).toBe("y");
		expect(snapshotDir(join(workspace, ".git"))).toEqual(before);
	});

	it("a file over checkpoints.maxFileBytes is left out with a note, and never touched by a restore", async () => {
		const { session, workspace } = await filesHarness(
			toolTurn("shell", { command: "echo more >> big.log; echo x > small.txt" }),
			{
				checkpoints: { maxFileBytes: 100 },
			},
		);
		writeFileSync(join(workspace, "big.log"), "b".repeat(500));
		const out = await prompt(session, "go");
		expect(ofType(out, "checkpoint_created")[0]?.skipped).toEqual([{ path: "big.log", bytes: 500 }]);
		const undone = await session.undo();
		expect(undone.restored).toEqual(["small.txt"]);
		expect(readFileSync(join(workspace, "big.log"), "utf8")).toBe(`${"b".repeat(500)}more\n`);
	});

	it("a 10,000-file workspace: a shell that deletes a folder of them is undone, every file back", {
		timeout: 180_000,
	}, async () => {
		const { session, workspace } = await filesHarness(toolTurn("shell", { command: "rm -r d7 && echo x > d0/f0.txt" }));
		for (let d = 0; d < 100; d++) {
			mkdirSync(join(workspace, `d${d}`));
			for (let f = 0; f < 100; f++) writeFileSync(join(workspace, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
		}
		const out = await prompt(session, "delete d7");
		expect(ofType(out, "checkpoint_created")).toHaveLength(1);
		expect(existsSync(join(workspace, "d7"))).toBe(false);
		const undone = await session.undo();
		expect(undone.restored).toHaveLength(101);
		expect(readdirSync(join(workspace, "d7"))).toHaveLength(100);
		expect(readFileSync(join(workspace, "d7", "f42.txt"), "utf8")).toBe("7/42\n");
		expect(readFileSync(join(workspace, "d0", "f0.txt"), "utf8")).toBe("0/0\n");
	});

	it("a restore is refused while a Task runs", async () => {
		const { session } = await filesHarness(toolTurn("write_file", { path: "a.txt", content: "x" }));
		await prompt(session, "write");
		const [checkpoint] = await session.checkpoints();
		const run = session.run([{ type: "user_text", text: "again", id: "u", ts: 0, seq: 0 }]);
		const first = await run.next();
		expect(first.done).toBe(false);
		await expect(session.restore(checkpoint?.id as string)).rejects.toThrow(/busy/);
		for await (const _ of run) {
			// drained
		}
	});
});

/** Every file under `dir` with its bytes. */
function snapshotDir(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (at: string) => {
		for (const entry of readdirSync(at, { withFileTypes: true })) {
			const path = join(at, entry.name);
			if (entry.isDirectory()) walk(path);
			else out[path.slice(dir.length)] = readFileSync(path).toString("base64");
		}
	};
	walk(dir);
	return out;
}
