import { findText, SEARCH_SCAN_LIMIT, type TextMatch } from "@omniloop/core/internal";
import type { SessionRegistry, SessionSummary } from "./session-registry.js";

/** `GET /chat/sessions?q=`'s answer (docs/protocol.md §3). */
export interface SearchAnswer {
	sessions: (SessionSummary & { match: { in: "title" } | ({ in: "text" } & TextMatch) })[];
	/** How many Sessions' messages were read (newest first), and the most one search reads. */
	textsScanned: number;
	scanLimit: number;
}

/**
 * The Sessions whose title or messages (the person's and the agent's) hold `q`, newest first.
 * Bounded: every title is searched, the messages of only the SEARCH_SCAN_LIMIT newest Sessions.
 */
export async function searchSessions(registry: SessionRegistry, q: string): Promise<SearchAnswer> {
	const needle = q.trim().replace(/\s+/g, " ").toLowerCase();
	const found: SearchAnswer["sessions"] = [];
	let textsScanned = 0;
	for (const summary of await registry.summaries()) {
		if (summary.title?.replace(/\s+/g, " ").toLowerCase().includes(needle)) {
			found.push({ ...summary, match: { in: "title" } });
			continue;
		}
		if (textsScanned >= SEARCH_SCAN_LIMIT) continue;
		textsScanned++;
		const match = findText(await registry.get(summary.id).log.history(0), q);
		if (match !== undefined) found.push({ ...summary, match: { in: "text", ...match } });
	}
	return { sessions: found, textsScanned, scanLimit: SEARCH_SCAN_LIMIT };
}
