export * from "./builtin-tools.js";
export { editFileTool } from "./edit-file.js";
export { globTool, MAX_GLOB_RESULTS } from "./glob.js";
export { grepTool, MAX_GREP_MATCHES } from "./grep.js";
export { listDirTool } from "./list-dir.js";
export {
	DEFAULT_OUTPUT_LIMIT,
	type KeepPart,
	limitOutput,
	type OutputLimit,
	TOOL_OUTPUTS_FOLDER,
} from "./output-limit.js";
export { readFileTool } from "./read-file.js";
export { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS, shellTool } from "./shell.js";
export { isInside, resolveInWorkspace, WorkspaceError, type WorkspacePath } from "./workspace.js";
export { writeFileTool } from "./write-file.js";
