/**
 * A Trace record that is not an OmniMessage: every seq up to `upTo` may have been handed out.
 *
 * Seq must never repeat, even after a crash, yet partials (which carry a seq) never reach the
 * Trace. So numbers are reserved in blocks, durably, before the first number of a block is used;
 * a resumed Session goes on above the last reservation. A clean close writes one more record
 * with `upTo` the last number used, so a Session resumed after a clean close skips none. The last
 * record of a file wins; the reader returns it apart from the messages.
 */
export interface SeqReservation {
	type: "seq_reserved";
	upTo: number;
}

/**
 * How many numbers one reservation covers: one Trace write per this many messages, at most, and
 * the most a crash can skip (a fixed block: one that grew with the Session let 27 crashes skip
 * over a million numbers).
 */
export const SEQ_BLOCK = 1024;

export function isSeqReservation(record: { type?: unknown }): record is SeqReservation {
	return record.type === "seq_reserved";
}
