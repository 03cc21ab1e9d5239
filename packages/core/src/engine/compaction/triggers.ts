import type { CompactionReason } from "../../messages/omni-message.js";
import type { SessionState } from "../loop-types.js";

/**
 * The automatic triggers: `context` when the last request's total reached maxContextLength,
 * `turns` when the Session made maxSessionTurns turns since its last compaction (a value ≤ 0
 * turns a trigger off). None while the breaker holds after failed compactions.
 */
export function compactionDue(session: SessionState): Exclude<CompactionReason, "manual"> | undefined {
	const { maxContextLength, maxSessionTurns } = session.config.compaction;
	if (session.turnCount < session.compaction.blockedUntilTurn) return undefined;
	if (session.context.length === 0) return undefined;
	if (maxContextLength > 0 && session.lastRequestTotal >= maxContextLength) return "context";
	if (maxSessionTurns > 0 && session.compaction.turnsSince >= maxSessionTurns) return "turns";
	return undefined;
}
