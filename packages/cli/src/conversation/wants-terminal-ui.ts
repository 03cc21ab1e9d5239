import type { CliContext } from "../cli-options.js";

/**
 * The terminal UI for a conversation: when a person is at a terminal on both ends, and the
 * output is for people (not --json). `TERM=dumb` keeps the line interface.
 */
export function wantsTerminalUi(ctx: CliContext): boolean {
	const { stdin } = ctx.streams;
	return (
		!ctx.screen.json &&
		stdin.isTTY === true &&
		ctx.stdout.isTTY === true &&
		typeof (stdin as NodeJS.ReadStream).setRawMode === "function" &&
		ctx.env.TERM !== "dumb"
	);
}
