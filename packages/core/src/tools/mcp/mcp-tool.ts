import type { CallToolResult, Tool as McpToolInfo, Progress } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../../messages/omni-message.js";
import type { ArgumentCheck, Tool, ToolContext } from "../tool.js";
import type { CallOptions } from "./mcp-connection.js";
import { resultText } from "./mcp-result.js";

/** What a tool needs from its server's connection; McpServerConnection is one. */
export interface McpToolCaller {
	readonly server: string;
	/** Rejects when no answer came; resolves with the result, `isError` ones included. */
	callTool(tool: string, args: JsonObject, options: CallOptions): Promise<CallToolResult>;
}

/**
 * An MCP server's tool as an omniloop Tool named `name`. The server's input schema is given to the
 * model as is, and the arguments are only checked to be an object: the server validates them, and
 * its own wording of a problem reaches the model as the call's error.
 */
export function mcpTool(
	name: string,
	info: McpToolInfo,
	caller: McpToolCaller,
	trustReadOnlyHints = false,
): Tool<JsonObject> {
	return {
		name,
		description: info.description ?? `Tool "${info.name}" of MCP server "${caller.server}".`,
		// The SDK checked it is an object with `type: "object"`; it came as JSON, so it is JSON.
		inputSchema: withoutSchemaKeyword(info.inputSchema as JsonObject),
		// Only an explicit hint of a trusted server counts: the approval policy lets read-only tools run unasked.
		readOnly: trustReadOnlyHints && info.annotations?.readOnlyHint === true,
		checkArguments: checkObject,
		execute: (args, ctx) => callMcpTool(caller, info.name, args, ctx),
	};
}

function checkObject(raw: unknown): ArgumentCheck<JsonObject> {
	if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) return { ok: true, value: raw as JsonObject };
	const got = raw === null ? "null" : Array.isArray(raw) ? "an array" : `a ${typeof raw}`;
	return { ok: false, problems: `(arguments): expected a JSON object, got ${got}` };
}

/** Throws the server's own text when it answers `isError`, so the engine records an `error` output. */
async function callMcpTool(caller: McpToolCaller, tool: string, args: JsonObject, ctx: ToolContext): Promise<string> {
	// ctx.progress must not be called once execute has settled; a late notification is dropped.
	let settled = false;
	try {
		const result = await caller.callTool(tool, args, {
			signal: ctx.signal,
			onprogress: (progress) => {
				if (!settled) ctx.progress(progressText(progress));
			},
		});
		const text = resultText(result);
		if (result.isError === true) {
			throw new Error(
				text.trim() === "" ? `MCP server "${caller.server}", tool "${tool}" failed without a message` : text,
			);
		}
		return text;
	} finally {
		settled = true;
	}
}

function progressText(progress: Progress): string {
	if (progress.message !== undefined) return progress.message;
	return progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
}

/** `$schema` says which draft the server wrote; the model does not need it, and some providers reject it. */
function withoutSchemaKeyword(schema: JsonObject): JsonObject {
	const { $schema: _draft, ...rest } = schema;
	return rest;
}
