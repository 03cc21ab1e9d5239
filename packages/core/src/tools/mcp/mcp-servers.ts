import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../messages/error-message.js";
import type { JsonObject } from "../../messages/omni-message.js";
import type { Tool } from "../tool.js";
import { type McpServerConfig, McpServerConnection } from "./mcp-connection.js";
import { McpStartError } from "./mcp-errors.js";
import { mcpTool } from "./mcp-tool.js";
import { mcpToolName } from "./mcp-tool-name.js";

export interface McpStartOptions {
	/** The folder servers run in, and the base a server's relative `cwd` is resolved against. */
	cwd: string;
	/** How long a server has to spawn, answer `initialize` and list its tools. Default 10 s. */
	startTimeoutMs?: number;
	/**
	 * How long one tool call may wait for its answer. Default 10 min, the engine's own default tool
	 * time limit, so the SDK's 60 s default does not cut long tools short first.
	 */
	callTimeoutMs?: number;
}

/** A server that could not be used; the others were not affected. */
export interface McpServerFailure {
	server: string;
	error: McpStartError;
}

/**
 * The MCP servers of a Session. Contract: call `close` when the Session ends (also after a
 * partial failure); until then the servers' processes keep running.
 */
export interface McpConnections {
	/** Every started server's tools: servers in config order, each server's tools in its order. */
	readonly tools: readonly Tool<JsonObject>[];
	/** The servers that started, in config order. */
	readonly started: readonly string[];
	/** The servers that did not, in config order, each with why. */
	readonly failures: readonly McpServerFailure[];
	/** Stops every server; resolves when their processes are gone. Idempotent. */
	close(): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 10_000;
const DEFAULT_CALL_TIMEOUT_MS = 600_000;

/**
 * Starts every server over stdio, in parallel, and makes their tools omniloop tools named
 * `<server>__<tool>` (see mcpToolName). Never rejects for a server's sake: a server that fails to
 * start, or whose tool names would clash with tools already taken, is listed in `failures` and
 * its process is stopped.
 */
export async function startMcpServers(
	servers: Record<string, McpServerConfig>,
	options: McpStartOptions,
): Promise<McpConnections> {
	const settings = {
		cwd: options.cwd,
		startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
		callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
	};
	const entries = Object.entries(servers);
	const outcomes = await Promise.allSettled(
		entries.map(([server, config]) => McpServerConnection.start(server, config, settings)),
	);
	const connections: McpServerConnection[] = [];
	const failures: McpServerFailure[] = [];
	outcomes.forEach((outcome, index) => {
		const [server, config] = entries[index]!;
		if (outcome.status === "fulfilled") connections.push(outcome.value);
		else failures.push({ server, error: asStartError(server, config.command, outcome.reason) });
	});
	const { tools, accepted, rejected } = collectTools(connections, servers);
	await Promise.all(rejected.map(({ connection }) => connection.close()));
	failures.push(...rejected.map(({ connection, error }) => ({ server: connection.server, error })));
	const order = entries.map(([server]) => server);
	failures.sort((a, b) => order.indexOf(a.server) - order.indexOf(b.server));
	return connectionSet(tools, accepted, failures);
}

interface CollectedTools {
	tools: Tool<JsonObject>[];
	accepted: McpServerConnection[];
	rejected: { connection: McpServerConnection; error: McpStartError }[];
}

/**
 * Names every tool, in config order. A server any of whose names is already taken (by an earlier
 * server, or by another of its own tools) is left out whole: half a server's tools would be a
 * confusing toolset, and its failure tells the user what clashed with what.
 */
function collectTools(
	connections: readonly McpServerConnection[],
	servers: Record<string, McpServerConfig>,
): CollectedTools {
	const owners = new Map<string, string>();
	const collected: CollectedTools = { tools: [], accepted: [], rejected: [] };
	for (const connection of connections) {
		const named = nameTools(connection, owners);
		if (named instanceof McpStartError) {
			collected.rejected.push({ connection, error: named });
			continue;
		}
		for (const [name, info] of named) {
			owners.set(name, `tool "${info.name}" of MCP server "${connection.server}"`);
			const trusted = servers[connection.server]?.trustReadOnlyHints === true;
			collected.tools.push(mcpTool(name, info, connection, trusted));
		}
		collected.accepted.push(connection);
	}
	return collected;
}

/** The server's tools by their omniloop names, or the error for the first name already taken. */
function nameTools(
	connection: McpServerConnection,
	owners: ReadonlyMap<string, string>,
): Map<string, McpToolInfo> | McpStartError {
	const named = new Map<string, McpToolInfo>();
	for (const info of connection.tools) {
		const name = mcpToolName(connection.server, info.name);
		const taken = named.get(name);
		const owner = taken ? `its tool "${taken.name}"` : owners.get(name);
		if (owner !== undefined) {
			const detail = `has a tool "${info.name}" whose name "${name}" is already taken by ${owner}`;
			return new McpStartError(connection.server, connection.command, detail);
		}
		named.set(name, info);
	}
	return named;
}

function connectionSet(
	tools: readonly Tool<JsonObject>[],
	connections: readonly McpServerConnection[],
	failures: readonly McpServerFailure[],
): McpConnections {
	let closing: Promise<void> | undefined;
	return {
		tools,
		started: connections.map((connection) => connection.server),
		failures,
		close() {
			closing ??= Promise.all(connections.map((connection) => connection.close())).then(() => undefined);
			return closing;
		},
	};
}

/** McpServerConnection.start rejects only with McpStartError; anything else is a bug worth naming. */
function asStartError(server: string, command: string, reason: unknown): McpStartError {
	if (reason instanceof McpStartError) return reason;
	return new McpStartError(server, command, `failed to start: ${errorMessage(reason)}`, { cause: reason });
}
