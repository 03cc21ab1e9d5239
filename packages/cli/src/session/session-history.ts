import { loadSystemConfig, SessionStore } from "@omniloop/core";
import type { Screen } from "../terminal/screen.js";
import { HumanView } from "../view/human-view.js";
import type { View } from "../view/view.js";

/**
 * A Session's conversation so far, as its user saw it (prompts, answers, calls, decisions), from
 * its Trace files in order: what --resume shows before the prompt, and what `replay` prints.
 * `header` is called before each Trace file (a compaction starts a new one). `view` shows the
 * messages (the terminal UI's, to render them as it does live), else the line view.
 */
export function showHistory(
	home: string,
	sessionId: string,
	screen: Screen,
	header: (file: { n: number; of: number; agentId: string; model: string; createdAt: string }) => string | undefined,
	view: View = replayView(home, screen),
): void {
	for (const { n, of, header: trace, messages } of new SessionStore(home).traceFiles(sessionId)) {
		const line = header({ n, of, agentId: trace.agentId, model: trace.model, createdAt: trace.createdAt });
		if (line !== undefined) screen.out.line(screen.out.style.dim(line));
		for (const message of messages) view.show(message);
		view.end();
	}
}

/** The line view in replay mode: what the user typed and decided is shown too. */
export function replayView(home: string, screen: Screen): View {
	return new HumanView(screen, {
		replay: true,
		maxRetries: reconnectLimits(home),
		// The credentials of that day are not knowable now; the failure itself is shown.
		credentialHint: () => "",
	});
}

/** The reconnect limits of a home's system_config.yaml, for views that have no agent (replay). */
function reconnectLimits(home: string): { turn: number; compaction: number } {
	try {
		const { reconnect } = loadSystemConfig(home);
		return { turn: reconnect.maxRetries, compaction: reconnect.compactionMaxRetries };
	} catch {
		return { turn: 5, compaction: 3 };
	}
}
