import type { Tool } from "../tool.js";

/**
 * A fresh array of the seven built-in tools, in BUILTIN_TOOL_NAMES order. They load when a
 * Session first uses them: their zod schemas cost several MB that an import of core (or an agent
 * without built-ins) never needs.
 */
export async function loadBuiltinTools(): Promise<Tool[]> {
	const { builtinTools } = await import("./builtin-tools.js");
	return builtinTools();
}
