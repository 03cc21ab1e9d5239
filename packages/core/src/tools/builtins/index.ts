// The built-in tools' public surface. The tools themselves load when a Session first uses them:
// their zod schemas cost several MB that an import of core (or an agent without built-ins) never needs.
import type { Tool } from "../tool.js";

export { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "./builtin-names.js";
export {
	DEFAULT_OUTPUT_LIMIT,
	type KeepPart,
	limitOutput,
	type OutputLimit,
	TOOL_OUTPUTS_FOLDER,
} from "./output-limit.js";
export { isInside, resolveInWorkspace, WorkspaceError, type WorkspacePath } from "./workspace.js";

/** A fresh array of the seven built-in tools, in BUILTIN_TOOL_NAMES order. */
export async function loadBuiltinTools(): Promise<Tool[]> {
	const { builtinTools } = await import("./builtin-tools.js");
	return builtinTools();
}
