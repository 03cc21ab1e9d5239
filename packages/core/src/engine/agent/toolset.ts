import { join } from "node:path";
import { configCredentialNamesOf } from "../../config/credential-values.js";
import { loadProjectConfig, PROJECT_CONFIG_FILE, resolveMcpServer } from "../../config/project-config.js";
import { loadBuiltinTools } from "../../tools/builtins/load-builtins.js";
import { startMcpServers } from "../../tools/mcp/index.js";
import { CommandSandbox } from "../../tools/sandbox/command-sandbox.js";
import { type SubagentRunner, subagentTool } from "../../tools/subagent.js";
import type { Tool } from "../../tools/tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { ledElsewhere } from "../session/real-path.js";
import type { AgentConfigError } from "./agent-definition.js";
import type { AgentSetup } from "./agent-setup.js";
import { checkApprovalKeys } from "./approval-keys.js";

/** A Session's tools, and what must be stopped when it closes. */
export interface Toolset {
	registry: ToolRegistry;
	/** How the Session's commands run (the shell's sandbox and environment). */
	sandbox: CommandSandbox;
	/** MCP servers that did not start; their tools are missing, the rest work. */
	loadErrors: readonly { server: string; message: string }[];
	close(): Promise<void>;
}

/**
 * Assembles a Session's tools as it loads: the built-ins, the tools of the project's MCP servers
 * (started now, with today's environment), a tool per other agent that has a description (when
 * the Session may still nest), narrowed to the agent's `tools` list if it has one; then the host's
 * own tools, always.
 */
export async function loadToolset(
	setup: AgentSetup,
	workspaceDir: string,
	depth: number,
	runner: SubagentRunner,
	configError: (message: string) => AgentConfigError,
): Promise<Toolset> {
	const project = loadProjectConfig(setup.configDir);
	const file = project.file ?? "omniloop.yaml";
	const servers = Object.fromEntries(
		Object.entries(project.config.mcp).map(([name, server]) => [name, resolveMcpServer(name, server, setup.env, file)]),
	);
	// The workspace's recorded real path: a folder since swapped for a link starts no server where it leads.
	const movedTo = ledElsewhere(workspaceDir);
	const names = Object.keys(servers);
	const mcp =
		names.length > 0 && movedTo === undefined ? await startMcpServers(servers, { cwd: workspaceDir }) : undefined;
	const notStarted =
		movedTo === undefined
			? []
			: names.map((server) => ({
					server,
					message: `not started: the workspace ${workspaceDir} now leads to ${movedTo} (it was replaced by a link or moved)`,
				}));
	const sandbox = await CommandSandbox.open(setup.definition.shell, {
		workspaceDir,
		home: setup.home,
		env: setup.env,
		deniedPaths: setup.deniedPaths,
		readOnlyPaths: setup.readOnlyPaths,
		// Read as the Session loads, like the environment itself: a credential stored later applies from the next load.
		secrets: { names: configCredentialNamesOf(project.config), values: setup.secrets() },
	});
	try {
		const subagents =
			depth < setup.config.subagents.maxDepth
				? Object.entries(project.config.agents)
						.filter(([id, agent]) => id !== setup.definition.agentId && agent.description !== undefined)
						.map(([id, agent]) => subagentTool(id, agent.description as string, runner))
				: [];
		const builtins = setup.builtins ? await loadBuiltinTools() : [];
		const pool: Tool[] = [...builtins, ...(mcp?.tools ?? []), ...subagents, ...setup.hostTools];
		const where = `${project.file ?? join(setup.configDir, PROJECT_CONFIG_FILE)}: agents.${setup.definition.agentId}.tools`;
		const chosen = select(pool, setup.definition.toolNames, where, configError);
		checkApprovalKeys(
			project.config,
			setup.definition.agentId,
			pool,
			project.file ?? join(setup.configDir, PROJECT_CONFIG_FILE),
			configError,
		);
		const named = new Set(chosen.map((t) => t.name));
		return {
			registry: new ToolRegistry([...chosen, ...setup.hostTools.filter((t) => !named.has(t.name))]),
			sandbox,
			loadErrors: [
				...notStarted,
				...(mcp?.failures ?? []).map((f) => ({ server: f.server, message: f.error.message })),
			],
			close: async () => {
				await sandbox.close();
				await mcp?.close();
			},
		};
	} catch (error) {
		await sandbox.close();
		await mcp?.close();
		throw error;
	}
}

/** The agent's `tools` list (`where` names the file and key it is in), each name one of the pool's. */
function select(
	pool: readonly Tool[],
	names: readonly string[] | undefined,
	where: string,
	configError: (message: string) => AgentConfigError,
): Tool[] {
	if (names === undefined) return [...pool];
	const byName = new Map(pool.map((t) => [t.name, t]));
	return names.map((name, index) => {
		if (names.indexOf(name) !== index) {
			throw configError(`${where}[${index}]: tool "${name}" is listed twice (first at [${names.indexOf(name)}])`);
		}
		const found = byName.get(name);
		if (found === undefined) {
			throw configError(
				`${where}[${index}]: tool "${name}" is not available (available: ${[...byName.keys()].join(", ") || "none"})`,
			);
		}
		return found;
	});
}
