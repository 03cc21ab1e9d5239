import type { CompactionReason } from "../../messages/omni-message.js";
import { runCompaction } from "../compaction/compaction.js";
import type { LoopContext, LoopState } from "../loop-types.js";

/**
 * compacting: summarize or discard the old context and rotate the Trace, then go on (thinking),
 * where steering that arrived meanwhile is delivered. A failed compaction keeps the old context
 * and the Task goes on — unless it was the provider's context-overflow that asked for it (that
 * request cannot be retried, so the Task ends with the overflow), or the provider refused the
 * credential (`auth`: no request would succeed, so the Task ends with that error).
 */
export async function compacting(ctx: LoopContext, reason: CompactionReason): Promise<LoopState> {
	const forOverflow = ctx.overflow;
	ctx.overflow = undefined;
	const result = await runCompaction(ctx, reason);
	if (result.status === "aborted") return { kind: "done", reason: "user_abort" };
	if (result.status === "failed" && result.error.kind === "auth")
		return { kind: "done", reason: "error", error: result.error };
	if (result.status === "failed" && forOverflow !== undefined)
		return { kind: "done", reason: "error", error: forOverflow };
	return { kind: "thinking" };
}
