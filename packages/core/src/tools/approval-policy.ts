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
