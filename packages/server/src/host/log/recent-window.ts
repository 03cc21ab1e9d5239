import { isPartialMessage, type OmniMessage } from "@omniloop/core";
import { RecentPartials } from "./recent-partials.js";

/**
 * The messages a Session emitted recently, partials included, for replay: the Trace has no
 * partials, and its last lines may not be flushed yet. It holds every message of the running Task
 * and up to `keepBefore` older complete ones; older messages are in the Trace (flushed when a Task
 * ends). The running Task's partials are kept apart, compactly (recent-partials.ts): they are the
 * bulk of its messages.
 */
export class RecentWindow {
	/** The complete messages, in seq order. */
	private messages: OmniMessage[] = [];
	private readonly partials = new RecentPartials();

	constructor(private readonly keepBefore = 2000) {}

	/**
	 * A Task starts: what came before it is trimmed to `keepBefore` messages (partials of an earlier
	 * Task are gone already: `endTask`).
	 */
	beginTask(): void {
		this.partials.clear();
		if (this.messages.length > this.keepBefore) this.messages = this.messages.slice(-this.keepBefore);
	}

	/**
	 * A Task ended: its partials go (its complete messages say the same, and partials are the bulk
	 * of a Task's messages); the complete messages stay until the Trace surely has them.
	 */
	endTask(): void {
		this.partials.clear();
	}

	add(message: OmniMessage): void {
		if (isPartialMessage(message)) this.partials.add(message);
		else this.messages.push(message);
	}

	/** The seq of the oldest message held; everything from there on is here. */
	get firstSeq(): number | undefined {
		const first = this.messages[0]?.seq;
		if (this.partials.length === 0) return first;
		const firstPartial = this.partials.seqAt(0);
		return first === undefined || firstPartial < first ? firstPartial : first;
	}

	/** Messages with a seq greater than `seq`, oldest first; without partials when `partials` is false. */
	after(seq: number, partials = true): OmniMessage[] {
		let low = 0;
		let high = this.messages.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if ((this.messages[mid] as OmniMessage).seq <= seq) low = mid + 1;
			else high = mid;
		}
		if (!partials || this.partials.length === 0) return this.messages.slice(low);
		return this.merged(low, this.partials.indexAfter(seq));
	}

	/** The complete messages from index `m` and the partials from index `p`, in seq order. */
	private merged(m: number, p: number): OmniMessage[] {
		const out: OmniMessage[] = [];
		const { messages, partials } = this;
		while (m < messages.length || p < partials.length) {
			const complete = messages[m];
			if (p < partials.length && (complete === undefined || partials.seqAt(p) < complete.seq)) {
				out.push(partials.messageAt(p++));
			} else {
				out.push(complete as OmniMessage);
				m++;
			}
		}
		return out;
	}
}
