import type { TextSink } from "./screen.js";

const TICK_MS = 100;

/**
 * Seconds with one decimal; a wait under a second written once is in milliseconds (a 10 ms ladder
 * would read "0.0 s"), while a live countdown stays in seconds so its line does not jump.
 */
export function formatWait(ms: number, live = false): string {
	return ms >= 1000 || live ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/**
 * A reconnect wait shown as it runs down. On a terminal one line is rewritten every tenth of a
 * second; elsewhere (a pipe, a log) the line is written once, since rewrites would only be noise.
 */
export class Countdown {
	private timer: NodeJS.Timeout | undefined;
	private render: ((remainingMs: number) => string) | undefined;

	constructor(private readonly sink: TextSink) {}

	/** `render(remaining)` makes the line; `render(0)` is what stays once the wait is over. */
	start(totalMs: number, render: (remainingMs: number) => string): void {
		this.stop();
		if (!this.sink.isTTY) {
			this.sink.line(render(totalMs));
			return;
		}
		this.sink.ensureNewline();
		this.render = render;
		const endsAt = Date.now() + totalMs;
		const tick = () => {
			const remaining = Math.max(0, endsAt - Date.now());
			this.sink.rewrite(render(remaining));
			if (remaining === 0) this.clearTimer();
		};
		tick();
		this.timer = setInterval(tick, TICK_MS);
		// A countdown must never be what keeps the process alive.
		this.timer.unref();
	}

	/** Ends the live line (when the retry starts, or anything else is shown). */
	stop(): void {
		this.clearTimer();
		if (this.render === undefined) return;
		this.sink.rewrite(this.render(0));
		this.sink.write("\n");
		this.render = undefined;
	}

	private clearTimer(): void {
		if (this.timer !== undefined) clearInterval(this.timer);
		this.timer = undefined;
	}
}
