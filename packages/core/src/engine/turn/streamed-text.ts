/**
 * Text streamed since its last complete message, kept as its deltas and joined when read. Every
 * streamed delta is appended here: a string grown by `+=` would be a rope of one cell per delta,
 * each a young object the collector copies until the turn ends (~15% of a 100,000-delta turn).
 * The deltas go into arrays of at most CHUNK: a single array would be copied whole at every
 * regrowth, and in a long turn those copies are large, old-generation garbage.
 */
const CHUNK = 512;

export class StreamedText {
	/** Full chunks, then the one being filled (last). */
	private chunks: string[][] = [];
	private current: string[] | undefined;

	/** An empty delta is no text: `empty` stays true until some arrives. */
	append(delta: string): void {
		if (delta === "") return;
		let current = this.current;
		if (current === undefined || current.length === CHUNK) {
			current = [];
			this.current = current;
			this.chunks.push(current);
		}
		current.push(delta);
	}

	get text(): string {
		const { chunks } = this;
		if (chunks.length === 0) return "";
		if (chunks.length === 1 && (chunks[0] as string[]).length === 1) return (chunks[0] as string[])[0] as string;
		let text = "";
		for (const chunk of chunks) text += chunk.join("");
		this.current = [text];
		this.chunks = [this.current];
		return text;
	}

	get empty(): boolean {
		return this.chunks.length === 0;
	}

	clear(): void {
		if (this.chunks.length === 0) return;
		this.chunks = [];
		this.current = undefined;
	}
}
