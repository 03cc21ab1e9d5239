import type { OmniMessage } from "../../messages/omni-message.js";
import type { SessionState } from "../loop-types.js";
import { nextSeq } from "../task/seq.js";

/**
 * Records an event the Session makes between Tasks (a restore, a rewind, a reload): it gets the
 * next seq and is on disk in the Trace before it is returned — the host passes it on to its
 * viewers, as it does a Task's messages.
 */
export function recordEvent<T extends OmniMessage>(state: SessionState, message: T): T {
	message.seq = nextSeq(state);
	state.trace.write(message);
	state.trace.flush();
	return message;
}
