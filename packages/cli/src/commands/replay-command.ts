import { omniloopHome, SessionStore } from "@omniloop/core";
import type { CliContext } from "../cli-options.js";
import { EXIT } from "../exit-codes.js";
import { showHistory } from "../session/session-history.js";
import { resolveSessionId } from "../session/session-lookup.js";

/**
 * `omniloop replay <id>`: a Session's Trace files in order, shown as the stream its user saw
 * (complete messages, as the live view renders them, with the user's prompts and decisions);
 * --json prints the Traces' messages, one a line.
 */
export function replayCommand(idOrPrefix: string, ctx: CliContext): number {
	const home = omniloopHome(ctx.env);
	const sessionId = resolveSessionId(home, idOrPrefix);
	const { screen } = ctx;
	if (screen.json) {
		for (const { messages } of new SessionStore(home).traceFiles(sessionId))
			for (const message of messages) screen.out.write(`${JSON.stringify(message)}\n`);
		return EXIT.ok;
	}
	showHistory(
		home,
		sessionId,
		screen,
		(file) =>
			`── Session ${sessionId} · trace file ${file.n} of ${file.of} · agent ${file.agentId} · model ${file.model} · ${file.createdAt}`,
	);
	return EXIT.ok;
}
