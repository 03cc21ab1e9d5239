import type { PartialMessage } from "@omniloop/core";

/** Partials a chunk holds: a Task's first chunk is its only one until it has streamed this many. */
const CHUNK = 128;

/** CHUNK partials' columns, allocated at their full size once: a column never grows. */
class Chunk {
	/** Each partial's seq, ts and template index, three numbers a partial. */
	readonly numbers = new Float64Array(CHUNK * 3);
	readonly deltas: string[] = new Array<string>(CHUNK);
}

/**
 * The running Task's partials, kept for replay as columns rather than objects: a partial is its
 * seq, ts and delta, and the first partial of its message (its "template"), whose other fields
 * (type, id, callId, name, origin) every later one shares. A streaming Task keeps thousands of
 * partials per Session for its whole length; as objects (~80 bytes each) they outlived the young
 * generation and grew the old one, which is most of the server's RSS under load. As columns they
 * cost ~20 bytes, and the objects die young.
 *
 * The columns are chunks of a fixed size, not arrays grown by push: a growing array is copied into
 * a larger one as it fills, and those copies, old enough to have been promoted, were garbage the
 * old generation held until its next full collection (docs/performance.md: Memory).
 *
 * A replayed partial is the template with its own seq, ts and delta: equal to the one emitted,
 * field for field (a partial has no fields of its own but those three).
 */
export class RecentPartials {
	private chunks: Chunk[] = [];
	private count = 0;
	private templates: PartialMessage[] = [];
	/** The template of each message id: partials of parallel tool calls interleave. */
	private byId = new Map<string, number>();

	get length(): number {
		return this.count;
	}

	add(message: PartialMessage): void {
		let template = this.byId.get(message.id);
		if (template === undefined || !sameMessage(this.templates[template] as PartialMessage, message)) {
			template = this.templates.push(message) - 1;
			this.byId.set(message.id, template);
		}
		const offset = this.count % CHUNK;
		if (offset === 0) this.chunks.push(new Chunk());
		const chunk = this.chunks[this.chunks.length - 1] as Chunk;
		chunk.numbers[offset * 3] = message.seq;
		chunk.numbers[offset * 3 + 1] = message.ts;
		chunk.numbers[offset * 3 + 2] = template;
		chunk.deltas[offset] = message.delta;
		this.count++;
	}

	seqAt(index: number): number {
		return this.number(index, 0);
	}

	/** The partial at `index`, as it was emitted. */
	messageAt(index: number): PartialMessage {
		const template = this.templates[this.number(index, 2)] as PartialMessage;
		const seq = this.seqAt(index);
		if (template.seq === seq) return template;
		const delta = (this.chunks[Math.floor(index / CHUNK)] as Chunk).deltas[index % CHUNK] as string;
		return { ...template, ts: this.number(index, 1), seq, delta };
	}

	/** The index of the first partial with a seq greater than `seq` (`length` when there is none). */
	indexAfter(seq: number): number {
		let low = 0;
		let high = this.count;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (this.seqAt(mid) <= seq) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	clear(): void {
		this.chunks = [];
		this.count = 0;
		this.templates = [];
		this.byId = new Map();
	}

	/** Column `column` (0 seq, 1 ts, 2 template) of the partial at `index`. */
	private number(index: number, column: number): number {
		return (this.chunks[Math.floor(index / CHUNK)] as Chunk).numbers[(index % CHUNK) * 3 + column] as number;
	}
}

/** Whether `message` is a later delta of the message `template` began: every field but seq, ts and delta the same. */
function sameMessage(template: PartialMessage, message: PartialMessage): boolean {
	if (template.type !== message.type || template.origin !== message.origin) return false;
	if (template.type !== "partial_tool_call") return true;
	return message.type === "partial_tool_call" && template.callId === message.callId && template.name === message.name;
}
