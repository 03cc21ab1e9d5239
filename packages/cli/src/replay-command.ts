import { join } from "node:path";
import { newestBegunTrace, omniloopHome, readTrace, sessionDir, traceFileName } from "@omniloop/core";
import type { CliContext } from "./cli-options.js";
import { reconnectLimits } from "./conversation.js";
import { EXIT } from "./exit-codes.js";
import { HumanView } from "./human-view.js";
import { resolveSessionId } from "./session-lookup.js";

/**
 * `omniloop replay <id>`: a Session's Trace files in order, shown as the stream its user saw
 * (complete messages, as the live view renders them, with the user's prompts and decisions);
 * --json prints the Traces' messages, one a line.
 */
export function replayCommand(idOrPrefix: string, ctx: CliContext): number {
	const home = omniloopHome(ctx.env);
	const sessionId = resolveSessionId(home, idOrPrefix);
	const dir = sessionDir(home, sessionId);
	const files = newestBegunTrace(dir);
	const { screen } = ctx;
	const view = new HumanView(screen, {
		replay: true,
		maxRetries: reconnectLimits(home),
		// The credentials of that day are not knowable now; the failure itself is shown.
		credentialHint: () => "",
	});
	for (let n = 1; n <= files; n++) {
		const { header, messages } = readTrace(join(dir, traceFileName(n)));
		if (screen.json) {
			for (const message of messages) screen.out.write(`${JSON.stringify(message)}\n`);
			continue;
		}
		screen.out.line(
			screen.out.style.dim(
				`── Session ${sessionId} · trace file ${n} of ${files} · agent ${header.agentId} · model ${header.model} · ${header.createdAt}`,
			),
		);
		for (const message of messages) view.show(message);
		view.end();
	}
	return EXIT.ok;
}
