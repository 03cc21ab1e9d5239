import type { Tool } from "../tool.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { shellTool } from "./shell.js";
import { writeFileTool } from "./write-file.js";

/**
 * A fresh array of the seven built-in tools, in BUILTIN_TOOL_NAMES order. The tools are stateless:
 * everything a call needs (the workspace, the Session's folder) comes in its ToolContext.
 */
export function builtinTools(): Tool[] {
	return [readFileTool, writeFileTool, editFileTool, listDirTool, globTool, grepTool, shellTool];
}
