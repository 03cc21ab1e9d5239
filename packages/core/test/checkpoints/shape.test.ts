import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "../harness.js";
import { filesHarness, prompt, toolTurn } from "./checkpoint-helpers.js";

afterEach(cleanup);

describe("a path that changes between file and folder", () => {
	it("a file that becomes a folder: undo brings the file back, and later checkpoints still work", async () => {
		const { session, workspace } = await filesHarness([
			...toolTurn("shell", { command: "rm d && mkdir d && echo x > d/x.txt" }),
			...toolTurn("write_file", { path: "later.txt", content: "later\n" }),
		]);
		writeFileSync(join(workspace, "d"), "file\n");
		await prompt(session, "make d a folder");
		expect(readFileSync(join(workspace, "d/x.txt"), "utf8")).toBe("x\n");
		await prompt(session, "write later");
		await session.undo();
		const undone = await session.undo();
		expect(undone.conflicts).toEqual([]);
		expect(statSync(join(workspace, "d")).isFile()).toBe(true);
		expect(readFileSync(join(workspace, "d"), "utf8")).toBe("file\n");
	});

	it("a folder that becomes a file: undo brings the folder back", async () => {
		const { session, workspace } = await filesHarness(toolTurn("shell", { command: "rm -r d && echo f > d" }));
		mkdirSync(join(workspace, "d"));
		writeFileSync(join(workspace, "d/x.txt"), "x\n");
		await prompt(session, "make d a file");
		expect(readFileSync(join(workspace, "d"), "utf8")).toBe("f\n");
		const undone = await session.undo();
		expect(undone.conflicts).toEqual([]);
		expect(readFileSync(join(workspace, "d/x.txt"), "utf8")).toBe("x\n");
	});
});
