import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolCall } from "../../src/messages/constructors.js";
import { type McpConnections, startMcpServers } from "../../src/tools/mcp/index.js";
import { CommandSandbox } from "../../src/tools/sandbox/command-sandbox.js";
import { checkToolName } from "../../src/tools/tool.js";
import { abortWatch, executeToolCall } from "../../src/tools/tool-execution.js";
import { cleanup, tempDir } from "../harness.js";
import { findTool, NODE, readPid, TEST_SERVER, toolContext } from "./mcp-helpers.js";

describe("an MCP server's tools", () => {
	let mcp: McpConnections;

	beforeAll(async () => {
		const pidFile = join(tempDir(), "pid");
		mcp = await startMcpServers(
			{ calc: { command: NODE, args: [TEST_SERVER], env: { PID_FILE: pidFile }, trustReadOnlyHints: true } },
			{ cwd: tempDir() },
		);
		expect(mcp.failures).toEqual([]);
		expect(readPid(pidFile)).toBeGreaterThan(0);
	});

	afterAll(async () => {
		await mcp.close();
		cleanup();
	});

	it("appear as <server>__<tool>, with the server's JSON schemas and read-only hints", () => {
		expect(mcp.started).toEqual(["calc"]);
		expect(mcp.tools.map((t) => t.name)).toEqual([
			"calc__add",
			"calc__fail",
			"calc__slow",
			"calc__cancelled",
			"calc__picture",
			"calc__measure",
			"calc__dotted_name",
		]);
		for (const t of mcp.tools) checkToolName(t.name);
		const add = findTool(mcp, "calc__add");
		expect(add.description).toBe("Adds two numbers.");
		expect(add.inputSchema).toMatchObject({
			type: "object",
			properties: { a: { type: "number" }, b: { type: "number" } },
			required: ["a", "b"],
		});
		expect(add.readOnly).toBe(true);
		expect(findTool(mcp, "calc__fail").readOnly).toBe(false);
		expect(findTool(mcp, "calc__cancelled").readOnly).toBe(true);
	});

	it("of a server not trusted with its hints are none read-only, so each asks by default", async () => {
		const untrusted = await startMcpServers({ calc: { command: NODE, args: [TEST_SERVER] } }, { cwd: tempDir() });
		try {
			expect(untrusted.tools.length).toBeGreaterThan(0);
			expect(untrusted.tools.filter((t) => t.readOnly)).toEqual([]);
		} finally {
			await untrusted.close();
		}
	});

	it("accept any JSON object as arguments and refuse anything else, naming what came", () => {
		const add = findTool(mcp, "calc__add");
		expect(add.checkArguments({ a: 1, b: "not checked here" })).toEqual({
			ok: true,
			value: { a: 1, b: "not checked here" },
		});
		expect(add.checkArguments([1, 2])).toEqual({
			ok: false,
			problems: "(arguments): expected a JSON object, got an array",
		});
		expect(add.checkArguments(null)).toMatchObject({ ok: false, problems: expect.stringContaining("got null") });
		expect(add.checkArguments("x")).toMatchObject({ ok: false, problems: expect.stringContaining("got a string") });
	});

	it("return the server's text", async () => {
		await expect(findTool(mcp, "calc__add").execute({ a: 2, b: 40 }, toolContext())).resolves.toBe("42");
	});

	it("turn an isError result into an error output with the server's message", async () => {
		const fail = findTool(mcp, "calc__fail");
		await expect(fail.execute({ reason: "no" }, toolContext())).rejects.toThrow(/^refused: no$/);
		const result = await executeToolCall(
			toolCall("c1", "calc__fail", JSON.stringify({ reason: "because" })),
			{ kind: "ready", tool: fail, args: { reason: "because" } },
			{
				workspaceDir: "/tmp",
				sessionDir: "/tmp",
				sandbox: CommandSandbox.unconfined(),
				task: toolContext().task,
				timeoutMs: 5_000,
				abort: abortWatch(new AbortController().signal),
				progress: () => {},
			},
		);
		expect(result).toEqual({ output: "Error: refused: because", status: "error" });
	});

	it("report the server's own argument validation as an error", async () => {
		const add = findTool(mcp, "calc__add");
		await expect(add.execute({ a: "one" }, toolContext())).rejects.toThrow(/Input validation error/);
	});

	it("cancel a slow call promptly when the signal fires, and the server hears of it", async () => {
		const controller = new AbortController();
		const progress: string[] = [];
		const started = Date.now();
		const call = findTool(mcp, "calc__slow").execute({ ms: 30_000 }, toolContext(controller.signal, progress));
		await expect.poll(() => progress).toEqual(["started waiting"]);
		controller.abort();
		await expect(call).rejects.toThrow('MCP server "calc", tool "slow": the call was cancelled');
		// Far sooner than the 30 s the call would take (the margin is a busy machine's).
		expect(Date.now() - started).toBeLessThan(15_000);
		const cancelled = findTool(mcp, "calc__cancelled");
		await expect.poll(() => cancelled.execute({}, toolContext())).toBe("1");
	});

	it("refuse at once when the signal has already fired", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(findTool(mcp, "calc__slow").execute({ ms: 30_000 }, toolContext(controller.signal))).rejects.toThrow(
			/the call was cancelled/,
		);
	});

	it("summarize non-text content and serialize structured content when there is no text", async () => {
		await expect(findTool(mcp, "calc__picture").execute({}, toolContext())).resolves.toBe(
			"a red dot\n[image: image/png, 1234 bytes]",
		);
		await expect(findTool(mcp, "calc__measure").execute({ text: "hello" }, toolContext())).resolves.toBe(
			'{"length":5}',
		);
		await expect(findTool(mcp, "calc__dotted_name").execute({}, toolContext())).resolves.toBe("dotted");
	});

	it("run calls in parallel", async () => {
		const add = findTool(mcp, "calc__add");
		const sums = await Promise.all([1, 2, 3, 4].map((n) => add.execute({ a: n, b: n }, toolContext())));
		expect(sums).toEqual(["2", "4", "6", "8"]);
	});
});
