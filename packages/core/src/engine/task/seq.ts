import { SEQ_BLOCK } from "../../trace/seq-reservation.js";
import type { TraceWriter } from "../../trace/trace-writer.js";

/** What numbering needs of a Session (its SessionState): the last seq, the reservation, the Trace to reserve in. */
export interface SeqCounter {
	seq: number;
	seqReserved: number;
	readonly trace: TraceWriter;
}

/**
 * The Session's next seq, for every message it emits or forwards, partials included. The hot
 * path is one compare: only the first number past the last durable reservation writes the Trace
 * (a block ahead, flushed before the number is used), so a resumed Session never repeats one.
 */
export function nextSeq(state: SeqCounter): number {
	const seq = ++state.seq;
	if (seq > state.seqReserved) reserveBlock(state, seq);
	return seq;
}

/** Reserves the block that begins at `from`: a crash skips at most SEQ_BLOCK numbers. */
function reserveBlock(state: SeqCounter, from: number): void {
	const upTo = from + SEQ_BLOCK - 1;
	try {
		state.trace.reserveSeq(upTo);
		state.seqReserved = upTo;
	} catch {
		// The disk is failing: the number goes out unreserved (the next one tries again), and the
		// flush at the next turn boundary ends the Task with the Trace error.
	}
}
