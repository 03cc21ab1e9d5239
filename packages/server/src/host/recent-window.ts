import { isPartialMessage, type OmniMessage } from "@omniloop/core";

/**
 * The messages a Session emitted recently, partials included, for replay: the Trace has no
 * partials, and its last lines may not be flushed yet. It holds every message of the running Task
 * and up to `keepBefore` older complete ones; older messages are in the Trace (flushed when a Task
 * ends).
 */
export class RecentWindow {
	private messages: OmniMessage[] = [];

	constructor(private readonly keepBefore = 2000) {}

	/** A Task starts: what came before it is trimmed to `keepBefore` messages. */
	beginTask(): void {
		if (this.messages.length > this.keepBefore) this.messages = this.messages.slice(-this.keepBefore);
	}

	/**
	 * A Task ended: its partials go (its complete messages say the same, and partials are the bulk
	 * of a Task's messages); the complete messages stay until the Trace surely has them.
	 */
	endTask(): void {
		this.messages = this.messages.filter((m) => !isPartialMessage(m));
	}

	add(message: OmniMessage): void {
		this.messages.push(message);
	}

	/** The seq of the oldest message held; everything from there on is here. */
	get firstSeq(): number | undefined {
		return this.messages[0]?.seq;
	}

	/** Messages with a seq greater than `seq`, oldest first. */
	after(seq: number): OmniMessage[] {
		let low = 0;
		let high = this.messages.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if ((this.messages[mid] as OmniMessage).seq <= seq) low = mid + 1;
			else high = mid;
		}
		return this.messages.slice(low);
	}
}
