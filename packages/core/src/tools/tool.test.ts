import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolCall } from "../messages/constructors.js";
import { policyFor } from "./approval-policy.js";
import { CommandSandbox } from "./sandbox/command-sandbox.js";
import { detachedTaskHooks, tool, toolSpec } from "./tool.js";
import { abortWatch, executeToolCall, INTERRUPTED_OUTPUT, prepareToolCall } from "./tool-execution.js";
import { ToolRegistry } from "./tool-registry.js";

const read = tool({
	name: "read_thing",
	description: "Reads a thing.",
	parameters: z.object({ path: z.string().describe("where"), lines: z.number().int().optional() }),
	readOnly: true,
	execute: async ({ path }) => `read ${path}`,
});

describe("tool({ name, description, parameters, readOnly?, execute }) with zod parameters", () => {
	it("gives the model a JSON Schema of the parameters", () => {
		expect(toolSpec(read)).toEqual({
			name: "read_thing",
			description: "Reads a thing.",
			inputSchema: {
				type: "object",
				properties: {
					path: { type: "string", description: "where" },
					lines: { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
				},
				required: ["path"],
			},
		});
	});

	it("defaults readOnly to false", () => {
		const t = tool({ name: "w", description: "", parameters: z.object({}), execute: async () => "" });
		expect(t.readOnly).toBe(false);
	});

	it("refuses a name the providers would refuse, and parameters that are not a zod object", () => {
		expect(() =>
			tool({ name: "has space", description: "", parameters: z.object({}), execute: async () => "" }),
		).toThrow(/tool name "has space" must match/);
		const notObject = z.string() as unknown as z.ZodObject<Record<string, never>>;
		expect(() => tool({ name: "x", description: "", parameters: notObject, execute: async () => "" })).toThrow(
			/parameters must be a zod object schema/,
		);
	});

	it("names the tool whose parameters JSON Schema cannot express, when a toolset is made with it", () => {
		const dated = tool({
			name: "when",
			description: "",
			parameters: z.object({ at: z.date() }),
			execute: async () => "",
		});
		expect(() => new ToolRegistry([dated])).toThrow(
			/tool "when": its parameters cannot be sent to a model as JSON Schema/,
		);
	});

	it("refuses two tools with the same name in one toolset", () => {
		expect(() => new ToolRegistry([read, read])).toThrow(/two tools are named "read_thing"/);
	});
});

describe("prepare → execute → finalize", () => {
	const registry = new ToolRegistry([read]);
	const task = detachedTaskHooks();
	const settings = {
		sandbox: CommandSandbox.unconfined(),
		workspaceDir: "/tmp",
		sessionDir: "/tmp",
		task,
		timeoutMs: 1000,
		abort: abortWatch(new AbortController().signal),
		progress: () => {},
	};

	it("checks arguments against the schema and names each problem", () => {
		const prepared = prepareToolCall(toolCall("c", "read_thing", { path: 1, lines: "x" }), registry);
		expect(prepared.kind).toBe("refused");
		expect(prepared.kind === "refused" && prepared.output).toMatch(
			/^Invalid arguments for read_thing: path: .*; lines: /,
		);
	});

	it("treats empty argument text as {}", () => {
		const empty = tool({ name: "e", description: "", parameters: z.object({}), execute: async () => "" });
		expect(prepareToolCall(toolCall("c", "e", ""), new ToolRegistry([empty])).kind).toBe("ready");
	});

	it("serializes a JSON result for the model", async () => {
		const json = tool({ name: "j", description: "", parameters: z.object({}), execute: async () => ({ a: [1, 2] }) });
		const call = toolCall("c", "j");
		const prepared = prepareToolCall(call, new ToolRegistry([json]));
		if (prepared.kind !== "ready") throw new Error("not ready");
		expect(await executeToolCall(call, prepared, settings)).toEqual({ output: '{"a":[1,2]}', status: "ok" });
	});

	it("settles as interrupted at once when the Task's signal fires, even if the tool ignores it", async () => {
		const deaf = tool({ name: "d", description: "", parameters: z.object({}), execute: () => new Promise(() => {}) });
		const call = toolCall("c", "d");
		const prepared = prepareToolCall(call, new ToolRegistry([deaf]));
		if (prepared.kind !== "ready") throw new Error("not ready");
		const controller = new AbortController();
		const pending = executeToolCall(call, prepared, { ...settings, abort: abortWatch(controller.signal) });
		controller.abort();
		expect(await pending).toEqual({ output: INTERRUPTED_OUTPUT, status: "interrupted" });
	});
});

describe("the approval policy", () => {
	const write = tool({ name: "write", description: "", parameters: z.object({}), execute: async () => "" });
	it("defaults to allow for read-only tools and ask for the rest", () => {
		expect(policyFor({}, read)).toBe("allow");
		expect(policyFor({}, write)).toBe("ask");
	});
	it('takes a rule by tool name first, then "*"', () => {
		expect(policyFor({ "*": "deny", read_thing: "ask" }, read)).toBe("ask");
		expect(policyFor({ "*": "deny" }, write)).toBe("deny");
	});
});
