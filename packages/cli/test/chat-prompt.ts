import type { CliProcess } from "./cli-harness.js";

/** What `omniloop chat` writes to stderr when it waits for the next line. */
export const PROMPT = "you> ";

/** Types `line` into the chat, then waits for `shown` on stdout and for the prompt after it. */
export async function enterLine(cli: CliProcess, line: string, shown: RegExp | string): Promise<void> {
	cli.write(`${line}\n`);
	await cli.waitFor(shown, "stdout");
	await cli.waitFor(PROMPT, "stderr");
}
