import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CHECKPOINT_FILE_BYTES } from "../../src/checkpoints/checkpoint-meta.js";
import { SessionCheckpoints } from "../../src/checkpoints/session-checkpoints.js";
import { ShadowStore } from "../../src/checkpoints/shadow-store.js";
import { createAgent } from "../../src/engine/agent/agent.js";
import { ScriptedModel } from "../../src/model/scripted.js";
import { cleanup } from "../harness.js";
import { filesHarness, prompt, toolTurn } from "./checkpoint-helpers.js";

afterEach(cleanup);

describe("a turn a crash cut off", () => {
	it("gets its seal as the Session is opened again: an undo takes the files it wrote for the agent's, not conflicts", async () => {
		const { session, home, workspace } = await filesHarness(
			toolTurn("write_file", { path: "a.txt", content: "one\n" }),
		);
		await prompt(session, "first");
		// The crash: the turn's checkpoint is made and its tools write, but the process dies before the seal.
		const store = ShadowStore.at(home, session.id, workspace, DEFAULT_CHECKPOINT_FILE_BYTES);
		const turn = await new SessionCheckpoints(store, session.id).create("turn", session.context.at(-1)?.seq as number);
		writeFileSync(join(workspace, "a.txt"), "two\n");
		writeFileSync(join(workspace, "b.txt"), "made\n");
		await session.close();

		const model = new ScriptedModel([], { whenExhausted: { text: "ok" } });
		const agent = await createAgent({ agentId: "files_agent", model, home, approval: { "*": "allow" } });
		const resumed = await agent.resumeSession(session.id);
		const target = await resumed.undoTarget();
		expect(target?.id).toBe(turn.id);
		const preview = await resumed.checkpointDiff(turn.id);
		expect(preview.map((f) => [f.path, f.conflict ?? false])).toEqual([
			["a.txt", false],
			["b.txt", false],
		]);
		const undone = await resumed.undo();
		expect([undone.restored, undone.conflicts]).toEqual([["a.txt", "b.txt"], []]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\n");
		expect(existsSync(join(workspace, "b.txt"))).toBe(false);
		await resumed.close();
	});

	it("is sealed once: what the person edits after the resume stays theirs, whatever Task runs next", async () => {
		const { session, home, workspace } = await filesHarness(
			toolTurn("write_file", { path: "a.txt", content: "one\n" }),
		);
		await prompt(session, "first");
		const store = ShadowStore.at(home, session.id, workspace, DEFAULT_CHECKPOINT_FILE_BYTES);
		await new SessionCheckpoints(store, session.id).create("turn", session.context.at(-1)?.seq as number);
		writeFileSync(join(workspace, "a.txt"), "two\n");
		await session.close();

		const model = new ScriptedModel([], { whenExhausted: { text: "ok" } });
		const agent = await createAgent({ agentId: "files_agent", model, home, approval: { "*": "allow" } });
		const resumed = await agent.resumeSession(session.id);
		writeFileSync(join(workspace, "a.txt"), "the person's\n");
		await prompt(resumed, "just answer");
		const undone = await resumed.undo();
		expect(undone.conflicts).toEqual(["a.txt"]);
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("the person's\n");
		await resumed.close();
	});
});
