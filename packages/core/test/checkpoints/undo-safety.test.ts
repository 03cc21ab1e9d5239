import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "../harness.js";
import { filesHarness, prompt, toolTurn } from "./checkpoint-helpers.js";

afterEach(cleanup);

describe("an undo never destroys what it should keep", () => {
	it("a .gitignore the agent rewrote: the files it ignored stay (.env, node_modules), though later snapshots hold them", async () => {
		const { session, workspace } = await filesHarness(
			toolTurn("write_file", { path: ".gitignore", content: "dist/\n" }),
		);
		writeFileSync(join(workspace, ".gitignore"), "node_modules/\n.env\n");
		writeFileSync(join(workspace, ".env"), "API_KEY=secret\n");
		mkdirSync(join(workspace, "node_modules/lib"), { recursive: true });
		writeFileSync(join(workspace, "node_modules/lib/index.js"), "module.exports = 1;\n");
		await prompt(session, "ignore dist");
		const target = await session.undoTarget();
		const preview = await session.checkpointDiff(target?.id as string);
		expect(preview.map((f) => f.path)).toEqual([".gitignore"]);
		const undone = await session.undo();
		expect([undone.restored, undone.conflicts]).toEqual([[".gitignore"], []]);
		expect(readFileSync(join(workspace, ".gitignore"), "utf8")).toBe("node_modules/\n.env\n");
		expect(readFileSync(join(workspace, ".env"), "utf8")).toBe("API_KEY=secret\n");
		expect(readFileSync(join(workspace, "node_modules/lib/index.js"), "utf8")).toBe("module.exports = 1;\n");
		// The undo of the undo puts the agent's .gitignore back, and still leaves them.
		await session.restore(undone.before);
		expect(readFileSync(join(workspace, ".gitignore"), "utf8")).toBe("dist/\n");
		expect(existsSync(join(workspace, ".env"))).toBe(true);
	});
});

describe("a turn that changed no file", () => {
	it("is passed over: the next undo takes back the last turn that changed something", async () => {
		const { session, workspace } = await filesHarness([
			...toolTurn("write_file", { path: "made.txt", content: "made\n" }),
			...toolTurn("shell", { command: "wc -l made.txt" }),
		]);
		await prompt(session, "make a file");
		await prompt(session, "count its lines");
		const undone = await session.undo();
		expect(undone.restored).toEqual(["made.txt"]);
		expect(existsSync(join(workspace, "made.txt"))).toBe(false);
		await expect(session.undo()).rejects.toThrow(/no turn left to undo/);
	});
});

describe("a conflict where a file and a folder swapped places", () => {
	it("the person edited the file that took a folder's place: undo keeps it, and the folder's files stay out", async () => {
		const { session, workspace } = await filesHarness(toolTurn("shell", { command: "rm -rf a && echo agent > a" }));
		mkdirSync(join(workspace, "a"));
		writeFileSync(join(workspace, "a/b.txt"), "b\n");
		await prompt(session, "make a a file");
		writeFileSync(join(workspace, "a"), "person's edit\n");
		const preview = await session.checkpointDiff((await session.undoTarget())?.id as string);
		expect(preview.map((f) => [f.path, f.conflict ?? false])).toEqual([
			["a", true],
			["a/b.txt", true],
		]);
		const undone = await session.undo();
		expect([undone.restored, undone.conflicts]).toEqual([[], ["a", "a/b.txt"]]);
		expect(readFileSync(join(workspace, "a"), "utf8")).toBe("person's edit\n");
	});

	it("the person edited a file in the folder that took a file's place: undo keeps the folder", async () => {
		const { session, workspace } = await filesHarness(
			toolTurn("shell", { command: "rm a && mkdir a && echo agent > a/x && echo agent > a/y" }),
		);
		writeFileSync(join(workspace, "a"), "the old file\n");
		await prompt(session, "make a a folder");
		writeFileSync(join(workspace, "a/x"), "person's edit\n");
		const undone = await session.undo();
		expect(undone.conflicts).toEqual(["a", "a/x"]);
		expect(undone.restored).toEqual(["a/y"]);
		expect(statSync(join(workspace, "a")).isDirectory()).toBe(true);
		expect(readFileSync(join(workspace, "a/x"), "utf8")).toBe("person's edit\n");
	});
});

describe("undo after a newer turn", () => {
	it("turns already undone stay undone: the next undo goes to the turn before them", async () => {
		const { session, workspace } = await filesHarness([
			...toolTurn("write_file", { path: "one", content: "1\n" }),
			...toolTurn("write_file", { path: "two", content: "2\n" }),
			...toolTurn("write_file", { path: "three", content: "3\n" }),
			...toolTurn("write_file", { path: "four", content: "4\n" }),
		]);
		const files = () => ["one", "two", "three", "four"].filter((f) => existsSync(join(workspace, f)));
		await prompt(session, "m1");
		await prompt(session, "m2");
		await prompt(session, "m3");
		await session.undo();
		const second = await session.undo();
		expect(files()).toEqual(["one"]);
		await prompt(session, "m4");
		expect((await session.undo()).restored).toEqual(["four"]);
		expect(files()).toEqual(["one"]);
		// The next undo goes a turn further back: m1's, not m2's again (which would bring "two" back).
		const fourth = await session.undo();
		expect(fourth.restored).toEqual(["one"]);
		expect(files()).toEqual([]);
		await expect(session.undo()).rejects.toThrow();
		// Restoring the second undo's `before` redoes what it undid: m2's turn is the one to undo again.
		await session.restore(second.before);
		expect(files()).toEqual(["one", "two"]);
		expect((await session.undo()).restored).toEqual(["two"]);
	});
});

describe("folders an undo leaves empty", () => {
	it("a folder that was there before the turn (empty, so no checkpoint holds it) stays; the ones the turn made go", async () => {
		const { session, workspace } = await filesHarness(
			toolTurn("shell", { command: "echo x > empty/new.txt && mkdir -p made/deep && echo y > made/deep/y.txt" }),
		);
		mkdirSync(join(workspace, "empty"));
		await prompt(session, "write in it");
		const undone = await session.undo();
		expect(undone.restored.sort()).toEqual(["empty/new.txt", "made/deep/y.txt"]);
		expect(statSync(join(workspace, "empty")).isDirectory()).toBe(true);
		expect(readdirSync(join(workspace, "empty"))).toEqual([]);
		expect(existsSync(join(workspace, "made"))).toBe(false);
	});
});
