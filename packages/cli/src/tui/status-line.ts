import type { Style } from "../terminal/style.js";
import { shorten } from "../view/tool-summary.js";
import type { TerminalUi } from "./terminal-ui.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * The one live line under the conversation, for whatever is being waited on, most pressing
 * first: a reconnect's countdown, then the model's first output ("waiting for the model… 42 s"),
 * then tools still running ("running shell npm test… 8 s").
 */
export class StatusLine {
	private retry: { endsAt: number; attempt: string } | undefined;
	private waiting: { since: number; what: string } | undefined;
	private readonly running = new Map<string, { label: string; since: number }>();

	constructor(
		private readonly ui: TerminalUi,
		private readonly style: Style,
	) {}

	/** A request was sent: its first output is awaited. */
	requestSent(what: string): void {
		this.retry = undefined;
		this.waiting = { since: Date.now(), what };
		this.refresh();
	}

	/** The model answered (or the request ended). */
	answered(): void {
		if (this.waiting === undefined) return;
		this.waiting = undefined;
		this.refresh();
	}

	retrying(waitMs: number, attempt: string): void {
		this.waiting = undefined;
		this.retry = { endsAt: Date.now() + waitMs, attempt };
		this.refresh();
	}

	toolStarted(callId: string, label: string): void {
		this.running.set(callId, { label, since: Date.now() });
		this.refresh();
	}

	toolEnded(callId: string): void {
		if (this.running.delete(callId)) this.refresh();
	}

	/** The stream is over: nothing is waited on any more. */
	clear(): void {
		this.retry = undefined;
		this.waiting = undefined;
		this.running.clear();
		this.ui.setStatus(undefined);
	}

	private refresh(): void {
		const busy = this.retry !== undefined || this.waiting !== undefined || this.running.size > 0;
		this.ui.setStatus(busy ? () => this.render() : undefined);
	}

	private render(): string | undefined {
		const now = Date.now();
		if (this.retry !== undefined) {
			const remaining = Math.max(0, this.retry.endsAt - now);
			const when = remaining === 0 ? "retrying now" : `retrying in ${(remaining / 1000).toFixed(1)} s`;
			return this.style.yellow(`↻ ${when}${this.retry.attempt} · Enter retries now · Ctrl-C gives up`);
		}
		if (this.waiting !== undefined) return this.style.dim(this.line(this.waiting.what, this.waiting.since, now));
		const [oldest, ...others] = [...this.running.values()];
		if (oldest === undefined) return undefined;
		const more = others.length === 0 ? "" : ` (+${others.length} more)`;
		const label = shorten(oldest.label, this.ui.columns - 30);
		return this.style.dim(`${this.line(`running ${label}`, oldest.since, now)}${more}`);
	}

	private line(what: string, since: number, now: number): string {
		const frame = FRAMES[Math.floor((now - since) / 200) % FRAMES.length] as string;
		// A label shortened already ends with its own ellipsis.
		return `${frame} ${what}${what.endsWith("…") ? "" : "…"} ${Math.floor((now - since) / 1000)} s`;
	}
}
