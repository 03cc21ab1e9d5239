import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../src/messages/omni-message.js";
import type { McpConnections } from "../../src/tools/mcp/index.js";
import { CommandSandbox } from "../../src/tools/sandbox/command-sandbox.js";
import type { Tool, ToolContext } from "../../src/tools/tool.js";
import { detachedTaskHooks } from "../../src/tools/tool.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The test servers, run with the node running the tests. */
export const NODE = process.execPath;
export const TEST_SERVER = join(here, "test-server.mjs");
export const PAGED_SERVER = join(here, "paged-server.mjs");

/** A ToolContext for calling a tool's execute directly; `progress` collects what the tool reports. */
export function toolContext(signal = new AbortController().signal, progress: string[] = []): ToolContext {
	return {
		signal,
		callId: "call-1",
		workspaceDir: here,
		sessionDir: here,
		sandbox: CommandSandbox.unconfined(),
		progress: (text) => progress.push(text),
		endTask: () => {},
		task: detachedTaskHooks(),
	};
}

export function findTool(mcp: McpConnections, name: string): Tool<JsonObject> {
	const found = mcp.tools.find((t) => t.name === name);
	if (found === undefined) throw new Error(`no tool "${name}" among ${mcp.tools.map((t) => t.name).join(", ")}`);
	return found;
}

/** Whether a process with this pid exists, by signal 0 (ESRCH when it does not). */
export function processExists(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
		throw error;
	}
}

export function readPid(file: string): number {
	return Number(readFileSync(file, "utf8"));
}
