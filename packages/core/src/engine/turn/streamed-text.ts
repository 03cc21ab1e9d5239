/**
 * Text streamed since its last complete message, kept as its deltas and joined when read. Every
 * streamed delta is appended here: a string grown by `+=` would be a rope of one cell per delta,
 * each a young object the collector copies until the turn ends (~15% of a 100,000-delta turn).
 */
export class StreamedText {
	private pieces: string[] = [];

	/** An empty delta is no text: `empty` stays true until some arrives. */
	append(delta: string): void {
		if (delta !== "") this.pieces.push(delta);
	}

	get text(): string {
		if (this.pieces.length > 1) this.pieces = [this.pieces.join("")];
		return this.pieces[0] ?? "";
	}

	get empty(): boolean {
		return this.pieces.length === 0;
	}

	clear(): void {
		if (this.pieces.length > 0) this.pieces = [];
	}
}
