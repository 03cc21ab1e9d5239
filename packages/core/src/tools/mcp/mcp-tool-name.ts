import { createHash } from "node:crypto";

/** The providers' limit on a tool name's length; see `checkToolName`. */
const MAX_NAME_LENGTH = 64;
const UNSAFE_CHARACTER = /[^a-zA-Z0-9_-]/g;
const HASH_LENGTH = 8;

/**
 * The omniloop name of an MCP server's tool: `<server>__<tool>`, made to match the providers' rule
 * `^[a-zA-Z0-9_-]{1,64}$`. Every other character becomes `_`. A name that is still too long is
 * cut and ends with `_` and a short hash of the whole original name, so two long names that
 * differ only past the cut stay apart. Deterministic: the same inputs give the same name in every
 * Session, which the prompt cache and resumed Traces rely on. Different inputs can still give one
 * name (`a.b` and `a_b`); callers must check for clashes.
 */
export function mcpToolName(server: string, tool: string): string {
	const original = `${server}__${tool}`;
	const safe = original.replace(UNSAFE_CHARACTER, "_");
	if (safe.length <= MAX_NAME_LENGTH) return safe;
	const hash = createHash("sha256").update(original).digest("hex").slice(0, HASH_LENGTH);
	return `${safe.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
