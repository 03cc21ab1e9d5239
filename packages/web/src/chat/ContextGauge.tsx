import { formatTokens } from "../usage/format.js";

/**
 * The engine's default `compaction.maxContextLength`. The server does not publish a Session's own
 * limit yet, so the gauge measures against the default.
 */
export const MAX_CONTEXT_LENGTH = 128_000;

/** How full the context window is: the last request's tokens against the compaction threshold. */
export function ContextGauge({ tokens }: { tokens: number | undefined }) {
	const used = tokens ?? 0;
	const share = Math.min(1, used / MAX_CONTEXT_LENGTH);
	const label = `Context: ${formatTokens(used)} of ${formatTokens(MAX_CONTEXT_LENGTH)} tokens`;
	return (
		<div className="gauge" title={label}>
			<meter
				aria-label="Context window"
				min={0}
				max={MAX_CONTEXT_LENGTH}
				low={MAX_CONTEXT_LENGTH * 0.6}
				high={MAX_CONTEXT_LENGTH * 0.85}
				optimum={0}
				value={used}
			/>
			<span className="muted">
				{formatTokens(used)} / {formatTokens(MAX_CONTEXT_LENGTH)} ({Math.round(share * 100)}%)
			</span>
		</div>
	);
}
