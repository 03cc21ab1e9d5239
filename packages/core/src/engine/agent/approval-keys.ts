import type { ProjectConfig } from "../../config/project-config.js";
import { BUILTIN_TOOL_NAMES } from "../../tools/builtins/builtin-names.js";
import { mcpToolName } from "../../tools/mcp/mcp-tool-name.js";
import { SUBAGENT_PREFIX } from "../../tools/subagent.js";
import type { Tool } from "../../tools/tool.js";
import type { AgentConfigError } from "./agent-definition.js";

/**
 * A key of the agent's `approval` map in omniloop.yaml that looks like a misspelt tool name is an
 * error naming the key and the tool it resembles: the rule would otherwise be silently skipped and
 * the tool left on its default (a `deny` meant for `read_file` written `read_fle`). A key that
 * resembles no tool is let be: the same file serves other hosts, whose own tools (an app's, given
 * to `createAgent`) this one does not have; so are a configured MCP server's tools, whose server
 * may not have started.
 */
export function checkApprovalKeys(
	config: ProjectConfig,
	agentId: string,
	pool: readonly Tool[],
	file: string,
	configError: (message: string) => AgentConfigError,
): void {
	const rules = config.agents[agentId]?.approval;
	if (rules === undefined) return;
	const known = new Set([...BUILTIN_TOOL_NAMES, ...pool.map((t) => t.name)]);
	for (const [id, agent] of Object.entries(config.agents))
		if (agent.description !== undefined) known.add(`${SUBAGENT_PREFIX}${id}`);
	// As the raw server name and as its tools are named (unsafe characters made `_`).
	const mcpPrefixes = Object.keys(config.mcp).flatMap((server) => [`${server}__`, mcpToolName(server, "")]);
	for (const key of Object.keys(rules)) {
		if (key === "*" || known.has(key) || mcpPrefixes.some((prefix) => key.startsWith(prefix))) continue;
		const like = [...known].find((name) => resembles(key, name));
		if (like === undefined) continue;
		throw configError(
			`${file}: agents.${agentId}.approval.${key}: no tool is named "${key}"; did you mean "${like}"? (tools: ${[...known].join(", ")}; "*" for every other tool)`,
		);
	}
}

/** The same name but for case, or one or two letters added, dropped, changed or swapped. */
function resembles(key: string, name: string): boolean {
	if (key.toLowerCase() === name.toLowerCase()) return true;
	if (Math.min(key.length, name.length) < 4) return false;
	return editDistance(key.toLowerCase(), name.toLowerCase(), 2) <= 2;
}

/** Damerau–Levenshtein distance (adjacent swaps count one), cut short once it passes `limit`. */
function editDistance(a: string, b: string, limit: number): number {
	if (Math.abs(a.length - b.length) > limit) return limit + 1;
	let before: number[] = [];
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
				best = Math.min(best, (before[j - 2] ?? 0) + 1);
			current.push(best);
		}
		before = previous;
		previous = current;
	}
	return previous[b.length] ?? limit + 1;
}
