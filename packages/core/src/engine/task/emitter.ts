import { withOrigin } from "../../messages/constructors.js";
import { isPartialMessage, type OmniMessage, type Origin, type PartialMessage } from "../../messages/omni-message.js";
import { PartialRedaction, type Redact, type RedactAny, redactor, valueRedactor } from "../../messages/redaction.js";
import type { OutputChannel } from "./output-channel.js";
import { nextSeq, type SeqCounter } from "./seq.js";

/** What an Emitter needs of its Session: numbering, the Trace, the credential values to redact. */
export interface EmittingSession extends SeqCounter {
	readonly secrets: () => readonly string[];
}

/**
 * Where a Task's messages leave the engine. `push` is the one place a message gets its seq,
 * its credential values redacted, its Trace line (partials and forwarded messages have none) and
 * its place in the run's output, in that order. Once the Task ends (`close`), only `final`
 * (abort, done, the last request_end) still goes out.
 */
export class Emitter {
	private open = true;
	/** Where each tool call sits in the output, by seq: `delivered` waits on those. */
	private readonly positions = new Map<number, number>();
	private readonly redact: Redact;
	private readonly redactAny: RedactAny;
	private readonly fragments: PartialRedaction;

	constructor(
		private readonly state: EmittingSession,
		private readonly channel: OutputChannel<OmniMessage>,
	) {
		const secrets = state.secrets();
		this.redact = redactor(secrets);
		this.redactAny = valueRedactor(secrets);
		this.fragments = new PartialRedaction(secrets);
	}

	/** Emits to the host and the Trace; a no-op once the Task is ending. */
	emit(message: OmniMessage): void {
		if (this.open) this.final(message);
	}

	/** Emits a partial fragment, to the host only. The per-delta path: no allocation of its own. */
	partial(fragment: PartialMessage): void {
		if (!this.open) return;
		const passed = this.fragments.pass(fragment);
		if (passed !== undefined) this.push(passed, true, false);
	}

	/** Emits one of the Task's last messages, past the point where `emit` closed. */
	final(message: OmniMessage): void {
		// A fragment's tail held back in case it began a key goes out just before its message.
		const held = this.fragments.release(message.id);
		if (held !== undefined) this.push(held, true, false);
		this.push(message, false, !isPartialMessage(message));
	}

	/** A subagent's message joins this stream (and its seq) but not this Trace: it is in the subagent's own. */
	forward(message: OmniMessage): void {
		if (this.open) this.push(message, false, false);
	}

	/**
	 * A nested Session's message, already redacted by that Session's Emitter: it redacts with the
	 * same values (a subagent is opened on its parent's setup, whose `secrets` it reads per Task),
	 * so only the origin this Task adds (the parent call's id, the agent's id) is redacted here.
	 */
	forwardRedacted(message: OmniMessage, origin: Origin): OmniMessage {
		const tagged = withOrigin(message, message.origin ?? this.redactedOrigin(origin));
		if (this.open) this.push(tagged, true, false);
		return tagged;
	}

	/** Settles once the host has read the tool call `message` from the stream (or the stream ended). */
	delivered(message: OmniMessage): Promise<void> {
		const position = this.positions.get(message.seq);
		this.positions.delete(message.seq);
		if (position === undefined) return Promise.resolve();
		// One macrotask more, so the host's own handling of the message (render it) runs first.
		return this.channel.untilTaken(position).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
	}

	/** Stops every emission but `final`. */
	close(): void {
		this.open = false;
	}

	/** The last origin given and its redacted copy: a subagent's messages all share one. */
	private origin: { given: Origin; redacted: Origin } | undefined;

	private redactedOrigin(origin: Origin): Origin {
		if (this.origin?.given !== origin) this.origin = { given: origin, redacted: this.redactAny(origin) };
		return this.origin.redacted;
	}

	private push(message: OmniMessage, redacted: boolean, recorded: boolean): void {
		message.seq = nextSeq(this.state);
		const out = redacted ? message : this.redact(message);
		if (recorded) this.state.trace.write(out);
		const position = this.channel.push(out);
		if (out.type === "tool_call") this.positions.set(out.seq, position);
	}
}
