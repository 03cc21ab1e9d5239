import type { StoreErrorEvent, TraceDamage } from "@omniloop/client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { useStoreErrors } from "../app/store-errors.js";

const NO_ERRORS: StoreErrorEvent[] = [];

/**
 * What the server could not keep for this Session, shown above the transcript without stopping
 * anything: writes that failed (`store_error`: kept and retried, or given up) and lines of its
 * Trace set aside as damaged (docs/protocol.md §2). Each can be dismissed.
 */
export function SessionNotices({ sessionId, lastSeq }: { sessionId: string; lastSeq: number }) {
	const errors = useStoreErrors((s) => s.errors);
	const dismissErrors = useStoreErrors((s) => s.dismiss);
	const mine = errors.some((e) => e.sessionId === sessionId)
		? errors.filter((e) => e.sessionId === sessionId)
		: NO_ERRORS;
	// Asked again after each Task: its first write moves a damaged line aside (then listed as moved).
	const damage = useQuery({
		queryKey: ["trace-damage", sessionId, lastSeq],
		queryFn: () => api.traceDamage(sessionId),
		placeholderData: (previous) => previous,
	});
	const [damageDismissed, setDamageDismissed] = useState(false);
	const lines = damageDismissed ? [] : (damage.data ?? []);
	if (mine.length === 0 && lines.length === 0) return null;
	return (
		<div className="session-notices">
			{mine.length === 0 ? null : (
				<div className="notice-banner" role="status" aria-label="Not saved">
					<ul>
						{mine.map((e) => (
							<li key={e.operation}>{storeErrorText(e)}</li>
						))}
					</ul>
					<button type="button" className="button small" onClick={() => dismissErrors(sessionId)}>
						Dismiss
					</button>
				</div>
			)}
			{lines.length === 0 ? null : (
				<div className="notice-banner" role="status" aria-label="Damaged Trace lines">
					<ul>
						{lines.map((d) => (
							<li key={`${d.file}:${d.line ?? d.movedTo}`}>{damageText(d)}</li>
						))}
					</ul>
					<button type="button" className="button small" onClick={() => setDamageDismissed(true)}>
						Dismiss
					</button>
				</div>
			)}
		</div>
	);
}

function storeErrorText(e: StoreErrorEvent): string {
	const what = e.operation === "usage" ? "a usage record" : `the Session's ${e.operation}`;
	const then = e.retrying ? "it is kept and tried again" : "it was given up";
	return `The server could not save ${what} (${e.message}); ${then}. The chat goes on.`;
}

function damageText(d: TraceDamage): string {
	if (d.movedTo !== undefined)
		return `A damaged line of ${d.file} was moved aside to ${d.movedTo} (${d.problem}); the rest of the history is intact.`;
	return `Line ${d.line ?? "?"} of ${d.file} could not be read (${d.problem}): it is left out of the history shown; the Session goes on.`;
}
