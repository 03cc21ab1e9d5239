import { mcpToolName } from "./mcp/mcp-tool-name.js";
import type { Tool } from "./tool.js";

export type PolicyRule = "allow" | "ask" | "deny";

/** The agent's `approval` map: a rule per tool name, `"*"` for every tool not named. */
export type ApprovalRules = Readonly<Record<string, PolicyRule>>;

/**
 * Decides, before any person is asked, what a call needs. The default, when neither the tool nor
 * `"*"` has a rule: read-only tools are allowed, the rest ask.
 */
export function policyFor(rules: ApprovalRules, t: Tool): PolicyRule {
	return rules[t.name] ?? rules["*"] ?? (t.readOnly ? "allow" : "ask");
}

/**
 * The rules with each key written after an MCP server's own name (`files.server__delete.all`)
 * also under the name its tool has (`files_server__delete_all`, see mcpToolName), which is the
 * name the policy looks up: the file may spell either. When both spellings have a rule, the
 * stricter holds (deny, then ask, then allow).
 */
export function withMcpToolNames(rules: ApprovalRules, servers: readonly string[]): ApprovalRules {
	let out: Record<string, PolicyRule> | undefined;
	for (const [key, rule] of Object.entries(rules)) {
		const server = servers.find((name) => key.startsWith(`${name}__`));
		if (server === undefined) continue;
		const named = mcpToolName(server, key.slice(server.length + 2));
		if (named === key) continue;
		out ??= { ...rules };
		const other = out[named];
		out[named] = other === undefined || STRICTNESS[rule] > STRICTNESS[other] ? rule : other;
	}
	return out ?? rules;
}

const STRICTNESS: Record<PolicyRule, number> = { allow: 0, ask: 1, deny: 2 };
