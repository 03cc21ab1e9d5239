import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import type { RetryWait } from "../transcript/model.js";
import { useNow } from "./use-now.js";

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
		<div className="retry" role="status" aria-label="Reconnecting">
			<p>
				<strong>The model connection failed</strong> ({wait.error?.message ?? wait.status}).{" "}
				{left > 0 ? (
					<>
						Retrying in <span className="countdown">{(left / 1000).toFixed(1)} s</span>
					</>
				) : (
					"Retrying now…"
				)}{" "}
				<span className="muted">(attempt {wait.attempt})</span>
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
		</div>
	);
}
