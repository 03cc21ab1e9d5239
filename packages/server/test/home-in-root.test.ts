import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonObject, OmniMessage } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { messagesOf, readFrames, startServer, tempDirs } from "./harness.js";

describe("the omniloop home inside a workspace root (omniloop serve started in ~)", () => {
	it("read-only tools refuse server.json, the store and other Sessions' Traces, and skip the home when they list or search", async () => {
		const dirs = tempDirs();
		writeFileSync(join(dirs.base, "notes.txt"), "ordinary notes\n");
		const call = (name: string, args: JsonObject, callId: string) => ({
			type: "tool_call" as const,
			name,
			args,
			callId,
		});
		const model = new ScriptedModel([
			[{ type: "text", text: "an earlier Session" }],
			[
				call("read_file", { path: "home/server.json" }, "token"),
				call("read_file", { path: "home/omniloop.db" }, "store"),
				call("list_dir", { path: "home/sessions" }, "traces"),
				call("glob", { pattern: "**/*" }, "glob"),
				call("grep", { pattern: "token|earlier" }, "grep"),
			],
			[{ type: "text", text: "done" }],
		]);
		// The root holds the home, as ~ holds ~/.omniloop.
		const t = await startServer({ model, token: "", workspaceRoots: [dirs.base] }, dirs);
		const earlier = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${earlier}/messages`, { method: "POST", json: { text: "hi" } }));
		const id = await t.createSession();
		const { frames } = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "look around" } }),
		);
		const outputs = new Map(
			messagesOf(frames)
				.filter((m: OmniMessage) => m.type === "tool_call_output")
				.map((m) => [m.type === "tool_call_output" ? m.callId : "", m]),
		);
		for (const refused of ["token", "store", "traces"]) {
			expect(outputs.get(refused)).toMatchObject({ status: "error" });
			expect(JSON.stringify(outputs.get(refused))).toContain(`is inside ${dirs.home}, omniloop's own data`);
		}
		expect(outputs.get("glob")).toMatchObject({ status: "ok" });
		const glob = outputs.get("glob");
		expect(glob?.type === "tool_call_output" && glob.output).toBe("notes.txt");
		const grep = outputs.get("grep");
		expect(grep?.type === "tool_call_output" && grep.output).toMatch(/^No lines match/);
		expect(JSON.stringify([...outputs.values()])).not.toContain(t.server.token);
	});
});
