import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolCall } from "../../src/messages/constructors.js";
import type { JsonObject } from "../../src/messages/omni-message.js";
import { BUILTIN_TOOL_NAMES } from "../../src/tools/builtins/builtin-names.js";
import { builtinTools } from "../../src/tools/builtins/builtin-tools.js";
import { CommandSandbox } from "../../src/tools/sandbox/command-sandbox.js";
import { detachedTaskHooks } from "../../src/tools/tool.js";
import { abortWatch, executeToolCall, prepareToolCall } from "../../src/tools/tool-execution.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => box.cleanup());

describe("builtinTools()", () => {
	it("gives the seven tools in order, read-only exactly where they only look", () => {
		const tools = builtinTools();
		expect(tools.map((t) => t.name)).toEqual([...BUILTIN_TOOL_NAMES]);
		expect(BUILTIN_TOOL_NAMES).toEqual(["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "shell"]);
		expect(Object.fromEntries(tools.map((t) => [t.name, t.readOnly]))).toEqual({
			read_file: true,
			write_file: false,
			edit_file: false,
			list_dir: true,
			glob: true,
			grep: true,
			shell: false,
		});
		expect(builtinTools()).not.toBe(tools);
	});

	it("describes each tool's arguments to the model as a JSON Schema", () => {
		const required = Object.fromEntries(builtinTools().map((t) => [t.name, t.inputSchema.required ?? []]));
		expect(required).toEqual({
			read_file: ["path"],
			write_file: ["path", "content"],
			edit_file: ["path", "old_string", "new_string"],
			list_dir: [],
			glob: ["pattern"],
			grep: ["pattern"],
			shell: ["command"],
		});
		for (const t of builtinTools()) {
			expect(t.description.length, t.name).toBeGreaterThan(40);
			expect(t.inputSchema.type).toBe("object");
		}
	});

	it("run through the engine's call path: results and refusals become outputs the model reads", async () => {
		box.write("hello.txt", "hi\n");
		const registry = new ToolRegistry(builtinTools());
		const settings = {
			workspaceDir: box.workspace,
			sessionDir: box.sessionDir,
			sandbox: CommandSandbox.unconfined(),
			task: detachedTaskHooks(),
			timeoutMs: 10_000,
			abort: abortWatch(new AbortController().signal),
			progress: () => {},
		};
		const run = async (name: string, args: JsonObject) => {
			const call = toolCall("c1", name, args);
			const prepared = prepareToolCall(call, registry);
			if (prepared.kind !== "ready") return { output: prepared.output, status: "refused" };
			return executeToolCall(call, prepared, settings);
		};
		expect(await run("read_file", { path: "hello.txt" })).toEqual({ output: "     1\thi", status: "ok" });
		expect(await run("read_file", { path: "../outside/x" })).toEqual({
			output: `Error: Path "../outside/x" is outside the workspace ${box.workspace}; file tools only reach files inside the workspace.`,
			status: "error",
		});
		expect(await run("shell", { command: "cat hello.txt" })).toEqual({ output: "hi\n[exit code 0]", status: "ok" });
		expect((await run("edit_file", { path: "hello.txt", old_string: 3, new_string: "x" })).output).toMatch(
			/^Invalid arguments for edit_file: old_string: /,
		);
	});
});
