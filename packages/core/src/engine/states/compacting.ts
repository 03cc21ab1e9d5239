import type { CompactionReason } from "../../messages/omni-message.js";
import type { LoopContext, LoopState } from "../loop-types.js";

/**
 * compacting: summarize or discard the old context and rotate the Trace (spec: "Compaction").
 * Nothing enters this state until the compaction triggers exist; reaching it now is a bug, and
 * ends the Task with an error rather than pretending to compact.
 */
export async function compacting(_ctx: LoopContext, reason: CompactionReason): Promise<LoopState> {
	return {
		kind: "done",
		reason: "error",
		error: { kind: "internal", message: `compaction (${reason}) is not available in this version` },
	};
}
