import type { OutputStream } from "../terminal/screen.js";
import type { TuiStore } from "./store.js";

/**
 * The conversation area as a stream: what the CLI's views and notices write becomes finished
 * lines above the input box. Nothing may write to the real stdout or stderr while the UI is
 * drawn, or it would land inside the input box; this is where such text goes instead.
 */
export class LogStream implements OutputStream {
	readonly isTTY = true;
	private tail = "";

	constructor(
		private readonly store: TuiStore,
		private readonly width: () => number,
	) {}

	get columns(): number {
		return this.width();
	}

	write(text: string): boolean {
		const all = this.tail + text;
		const end = all.lastIndexOf("\n");
		if (end === -1) {
			this.tail = all;
			return true;
		}
		this.tail = all.slice(end + 1);
		this.store.commit(all.slice(0, end));
		return true;
	}

	/** Whatever is left without its newline, written out (the UI is closing). */
	flush(): void {
		if (this.tail !== "") this.store.commit(this.tail);
		this.tail = "";
	}
}
