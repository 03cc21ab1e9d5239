import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { useNow } from "../app/use-now.js";
import type { RetryWait } from "../transcript/model.js";

/**
 * The engine waits before reconnecting: a countdown that ticks, the attempt number, "Retry now"
 * (skips the rest of the wait; the attempt counter stays) and "Give up" (the ordinary Stop).
 */
export function RetryCountdown({ sessionId, wait }: { sessionId: string; wait: RetryWait }) {
	const now = useNow(100);
	const [error, setError] = useState<string | undefined>(undefined);
	const left = Math.max(0, wait.at - now);
	const act = (call: () => Promise<unknown>) => call().catch((e: unknown) => setError(errorText(e)));
	return (
		// Only the failure and the attempt are a live region: the number that ticks every 100 ms is
		// outside it (readable, never announced), or a screen reader would read each tick.
		<section className="retry" aria-label="Reconnecting">
			<p role="status">
				<strong>The model connection failed</strong> ({wait.error?.message ?? wait.status}).{" "}
				<span className="muted">(attempt {wait.attempt})</span>
			</p>
			<p className="retry-wait">
				{left > 0 ? (
					<>
						Retrying in <span className="countdown">{(left / 1000).toFixed(1)} s</span>
					</>
				) : (
					"Retrying now…"
				)}
			</p>
			<div className="retry-actions">
				<button type="button" className="button primary" onClick={() => act(() => api.retryNow(sessionId))}>
					Retry now
				</button>
				<button type="button" className="button" onClick={() => act(() => api.abort(sessionId))}>
					Give up
				</button>
			</div>
			{error === undefined ? null : <p className="error-text">{error}</p>}
		</section>
	);
}
