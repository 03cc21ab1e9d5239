/**
 * Why one MCP server could not be used: its command was not found, it exited or did not answer
 * while starting, or its tools' names clash with others. The message names the server and the
 * command (not the arguments, which may hold secrets); when the server wrote to stderr, the
 * message ends with the last of it, since that is usually where the real reason is.
 */
export class McpStartError extends Error {
	override readonly name = "McpStartError";

	constructor(
		readonly server: string,
		readonly command: string,
		detail: string,
		options?: { cause?: unknown },
	) {
		super(`MCP server "${server}" (command "${command}") ${detail}`, options);
	}
}

/**
 * A tool call that did not get an answer from its server: the server exited, was closed, timed
 * out, was cancelled, or answered with a protocol error. A tool that answers `isError` is not
 * this: that is the server's own message, thrown as a plain Error.
 */
export class McpToolCallError extends Error {
	override readonly name = "McpToolCallError";

	constructor(
		readonly server: string,
		readonly tool: string,
		detail: string,
		options?: { cause?: unknown },
	) {
		super(`MCP server "${server}", tool "${tool}": ${detail}`, options);
	}
}
