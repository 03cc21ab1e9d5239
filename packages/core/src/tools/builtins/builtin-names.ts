/** The built-in tools' names, in builtinTools() order. */
export const BUILTIN_TOOL_NAMES = [
	"read_file",
	"write_file",
	"edit_file",
	"list_dir",
	"glob",
	"grep",
	"shell",
] as const;

/** The name of a built-in tool. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];
