import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type McpConnections, McpStartError, startMcpServers } from "../../src/tools/mcp/index.js";
import { cleanup, tempDir } from "../harness.js";
import { findTool, NODE, PAGED_SERVER, processExists, readPid, TEST_SERVER, toolContext } from "./mcp-helpers.js";

const opened: McpConnections[] = [];

async function start(...args: Parameters<typeof startMcpServers>): Promise<McpConnections> {
	const mcp = await startMcpServers(...args);
	opened.push(mcp);
	return mcp;
}

afterEach(async () => {
	await Promise.all(opened.splice(0).map((mcp) => mcp.close()));
	cleanup();
});

describe("startMcpServers with servers that fail", () => {
	it("reports each failed server alone, naming it and its command, and the good one's tools work", async () => {
		const mcp = await start(
			{
				missing: { command: "omniloop-no-such-command" },
				good: { command: NODE, args: [TEST_SERVER] },
				quitter: { command: NODE, args: ["-e", "console.error('bad config, giving up'); process.exit(3)"] },
			},
			{ cwd: tempDir() },
		);
		expect(mcp.started).toEqual(["good"]);
		expect(mcp.failures.map((f) => f.server)).toEqual(["missing", "quitter"]);
		const [missing, quitter] = mcp.failures.map((f) => f.error);
		expect(missing).toBeInstanceOf(McpStartError);
		expect(missing?.message).toMatch(
			/^MCP server "missing" \(command "omniloop-no-such-command"\) could not start: command not found/,
		);
		expect(quitter?.message).toBe(
			`MCP server "quitter" (command "${NODE}") exited before answering initialize; its stderr ends with: bad config, giving up`,
		);
		expect(mcp.tools.every((t) => t.name.startsWith("good__"))).toBe(true);
		await expect(findTool(mcp, "good__add").execute({ a: 1, b: 2 }, toolContext())).resolves.toBe("3");
	});

	it("gives up on a server that does not answer initialize in time, and stops it", async () => {
		const pidFile = join(tempDir(), "pid");
		const hang = `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
		const started = Date.now();
		const mcp = await start({ mute: { command: NODE, args: ["-e", hang] } }, { cwd: tempDir(), startTimeoutMs: 300 });
		// Given up on, not waited for: the server never answers (the margin is a busy machine's).
		expect(Date.now() - started).toBeLessThan(15_000);
		expect(mcp.tools).toEqual([]);
		expect(mcp.failures[0]?.error.message).toBe(
			`MCP server "mute" (command "${NODE}") did not answer initialize within 300 ms`,
		);
		expect(processExists(readPid(pidFile))).toBe(false);
	});

	it("names a cwd that does not exist", async () => {
		const mcp = await start({ lost: { command: NODE, args: [TEST_SERVER], cwd: "no/such/dir" } }, { cwd: tempDir() });
		expect(mcp.failures[0]?.error.message).toMatch(
			/^MCP server "lost" .* could not start: its cwd ".*no\/such\/dir" does not exist$/,
		);
	});

	it("fails a server whose tool names clash, naming both tools, and keeps the first", async () => {
		const mcp = await start(
			{
				"a.b": { command: NODE, args: [PAGED_SERVER], env: { TOOL_NAMES: "x" } },
				a_b: { command: NODE, args: [PAGED_SERVER], env: { TOOL_NAMES: "y,x" } },
				self: { command: NODE, args: [PAGED_SERVER], env: { TOOL_NAMES: "p.q,p_q" } },
			},
			{ cwd: tempDir() },
		);
		expect(mcp.started).toEqual(["a.b"]);
		expect(mcp.tools.map((t) => t.name)).toEqual(["a_b__x"]);
		expect(mcp.failures.map((f) => f.error.message)).toEqual([
			`MCP server "a_b" (command "${NODE}") has a tool "x" whose name "a_b__x" is already taken by tool "x" of MCP server "a.b"`,
			`MCP server "self" (command "${NODE}") has a tool "p_q" whose name "self__p_q" is already taken by its tool "p.q"`,
		]);
	});
});

describe("startMcpServers with servers that work", () => {
	it("follows tools/list pagination", async () => {
		const mcp = await start({ paged: { command: NODE, args: [PAGED_SERVER] } }, { cwd: tempDir() });
		expect(mcp.tools.map((t) => t.name)).toEqual(["paged__first", "paged__second", "paged__third"]);
		expect(mcp.tools.map((t) => t.readOnly)).toEqual([false, false, false]);
		await expect(findTool(mcp, "paged__third").execute({ n: 1 }, toolContext())).resolves.toBe('third {"n":1}');
	});

	it("starts servers in parallel", async () => {
		const servers = Object.fromEntries(
			["s1", "s2", "s3", "s4"].map((name) => [name, { command: NODE, args: [TEST_SERVER] }]),
		);
		const mcp = await start(servers, { cwd: tempDir() });
		expect(mcp.started).toEqual(["s1", "s2", "s3", "s4"]);
		expect(mcp.tools).toHaveLength(4 * 7);
	});

	it("close() leaves no child process, is idempotent, and later calls fail clearly", async () => {
		const dir = tempDir();
		const pidFiles = [join(dir, "one"), join(dir, "two")];
		const mcp = await start(
			{
				one: { command: NODE, args: [TEST_SERVER], env: { PID_FILE: pidFiles[0]! } },
				two: { command: NODE, args: [TEST_SERVER], env: { PID_FILE: pidFiles[1]! } },
			},
			{ cwd: dir },
		);
		const pids = pidFiles.map(readPid);
		expect(pids.map(processExists)).toEqual([true, true]);
		await Promise.all([mcp.close(), mcp.close()]);
		expect(pids.map(processExists)).toEqual([false, false]);
		await mcp.close();
		await expect(findTool(mcp, "one__add").execute({ a: 1, b: 1 }, toolContext())).rejects.toThrow(
			'MCP server "one", tool "add": the server was closed',
		);
	});

	it("close() stops a server in the middle of a call", async () => {
		const pidFile = join(tempDir(), "pid");
		const mcp = await start(
			{ busy: { command: NODE, args: [TEST_SERVER], env: { PID_FILE: pidFile } } },
			{ cwd: tempDir() },
		);
		const call = findTool(mcp, "busy__slow").execute({ ms: 60_000 }, toolContext());
		call.catch(() => {});
		await mcp.close();
		expect(processExists(readPid(pidFile))).toBe(false);
		await expect(call).rejects.toThrow(/MCP server "busy", tool "slow"/);
	});

	it("reports a server that exited after starting when its tool is called", async () => {
		const pidFile = join(tempDir(), "pid");
		const mcp = await start(
			{ crashy: { command: NODE, args: [TEST_SERVER], env: { PID_FILE: pidFile } } },
			{ cwd: tempDir() },
		);
		process.kill(readPid(pidFile), "SIGKILL");
		await expect.poll(() => processExists(readPid(pidFile))).toBe(false);
		await expect(findTool(mcp, "crashy__add").execute({ a: 1, b: 1 }, toolContext())).rejects.toThrow(
			'MCP server "crashy", tool "add": the server has exited',
		);
	});

	it("starts nothing for an empty config", async () => {
		const mcp = await start({}, { cwd: tempDir() });
		expect(mcp).toMatchObject({ tools: [], started: [], failures: [] });
	});
});
