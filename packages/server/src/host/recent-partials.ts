import type { PartialMessage } from "@omniloop/core";

/**
 * The running Task's partials, kept for replay as columns rather than objects: a partial is its
 * seq, ts and delta, and the first partial of its message (its "template"), whose other fields
 * (type, id, callId, name, origin) every later one shares. A streaming Task keeps thousands of
 * partials per Session for its whole length; as objects (~80 bytes each) they outlived the young
 * generation and grew the old one, which is most of the server's RSS under load. As columns they
 * cost ~20 bytes, and the objects die young.
 *
 * A replayed partial is the template with its own seq, ts and delta: equal to the one emitted,
 * field for field (a partial has no fields of its own but those three).
 */
export class RecentPartials {
	private seqs: number[] = [];
	private stamps: number[] = [];
	private deltas: string[] = [];
	/** Each partial's template, as an index into `templates`. */
	private of: number[] = [];
	private templates: PartialMessage[] = [];
	/** The template of each message id: partials of parallel tool calls interleave. */
	private byId = new Map<string, number>();

	get length(): number {
		return this.seqs.length;
	}

	add(message: PartialMessage): void {
		let template = this.byId.get(message.id);
		if (template === undefined || !sameMessage(this.templates[template] as PartialMessage, message)) {
			template = this.templates.push(message) - 1;
			this.byId.set(message.id, template);
		}
		this.seqs.push(message.seq);
		this.stamps.push(message.ts);
		this.deltas.push(message.delta);
		this.of.push(template);
	}

	seqAt(index: number): number {
		return this.seqs[index] as number;
	}

	/** The partial at `index`, as it was emitted. */
	messageAt(index: number): PartialMessage {
		const template = this.templates[this.of[index] as number] as PartialMessage;
		const seq = this.seqs[index] as number;
		if (template.seq === seq) return template;
		return { ...template, ts: this.stamps[index] as number, seq, delta: this.deltas[index] as string };
	}

	/** The index of the first partial with a seq greater than `seq` (`length` when there is none). */
	indexAfter(seq: number): number {
		let low = 0;
		let high = this.seqs.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if ((this.seqs[mid] as number) <= seq) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	clear(): void {
		this.seqs = [];
		this.stamps = [];
		this.deltas = [];
		this.of = [];
		this.templates = [];
		this.byId = new Map();
	}
}

/** Whether `message` is a later delta of the message `template` began: every field but seq, ts and delta the same. */
function sameMessage(template: PartialMessage, message: PartialMessage): boolean {
	if (template.type !== message.type || template.origin !== message.origin) return false;
	if (template.type !== "partial_tool_call") return true;
	return message.type === "partial_tool_call" && template.callId === message.callId && template.name === message.name;
}
