// The built-in tools' public surface; the tools themselves load when first used (load-builtins.ts).
export { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "./builtin-names.js";
export { loadBuiltinTools } from "./load-builtins.js";
export {
	DEFAULT_OUTPUT_LIMIT,
	type KeepPart,
	limitOutput,
	type OutputLimit,
	TOOL_OUTPUTS_FOLDER,
} from "./output-limit.js";
export { isInside, resolveInWorkspace, WorkspaceError, type WorkspacePath } from "./workspace.js";
