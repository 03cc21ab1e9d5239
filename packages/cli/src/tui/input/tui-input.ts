import type { ChatInput, LineRoute } from "../../terminal/line-input.js";
import type { Style } from "../../terminal/style.js";
import type { TerminalUi } from "../terminal-ui.js";

const IDLE_HINT = "Enter sends · Alt+Enter or Shift+Enter: new line · ↑/↓ history · Ctrl-O reasoning · Ctrl-D leaves";
const BUSY_HINT = "Enter sends a steer (the model sees it at its next turn) · Ctrl-C stops the Task";

/**
 * Messages from the input box. A message sent at the prompt is the next Task; sent while a Task
 * runs it goes to the route (steering); one the route cannot take waits for the prompt. Each is
 * echoed into the conversation exactly as it was written.
 */
export class TuiInput implements ChatInput {
	private readonly queue: string[] = [];
	/** How a queued or sent message is echoed, when the input showed it otherwise (long pastes). */
	private readonly shownAs = new Map<string, string>();
	private pending: ((text: string | undefined) => void) | undefined;
	/** A question waits for its answer: the next message sent is it, echoed as an answer. */
	private asking = false;
	private route: LineRoute | undefined;
	private ended = false;

	constructor(
		private readonly ui: TerminalUi,
		private readonly style: Style,
	) {
		this.showPrompt(false);
	}

	/** Ctrl-D: the same as the end of a pipe. */
	end(): void {
		this.ended = true;
		const pending = this.pending;
		this.pending = undefined;
		pending?.(undefined);
	}

	readonly submit = (text: string, shown: string = text): void => {
		if (shown !== text) this.shownAs.set(text, shown);
		const pending = this.pending;
		if (pending !== undefined) {
			this.pending = undefined;
			if (text.trim() !== "") this.echo(this.asking ? "answer>" : "you>", text);
			this.asking = false;
			this.showPrompt(true);
			pending(text);
			return;
		}
		if (this.route !== undefined) {
			// Echoed first: what the route says about it (steering, queued) follows it.
			if (text.trim() !== "") this.echo("you>", text);
			if (!this.route(text) && text.trim() !== "") this.queue.push(text);
			return;
		}
		if (text.trim() !== "") this.queue.push(text);
	};

	next(): Promise<string | undefined> {
		const queued = this.queue.shift();
		if (queued !== undefined) {
			this.echo("you>", queued);
			this.showPrompt(true);
			return Promise.resolve(queued);
		}
		if (this.ended) return Promise.resolve(undefined);
		this.showPrompt(false);
		return new Promise((resolve) => {
			this.pending = resolve;
		});
	}

	/** The question goes into the conversation and the box asks for its answer; nothing queued answers it. */
	question(text: string): Promise<string | undefined> {
		if (this.ended) return Promise.resolve(undefined);
		this.ui.store.commit(`\n${this.style.bold(text.trim())}`);
		this.ui.setPrompt("answer> ", `${text.trim()} · Enter with nothing cancels (Esc and Ctrl-C too)`);
		this.asking = true;
		return new Promise((resolve) => {
			this.pending = resolve;
		});
	}

	/** Esc or Ctrl-C while a question waits: answered with nothing, which cancels it. False when none waits. */
	cancelQuestion(): boolean {
		if (!this.asking || this.pending === undefined) return false;
		this.submit("");
		return true;
	}

	setRoute(route: LineRoute | undefined): void {
		this.route = route;
		this.showPrompt(route !== undefined);
	}

	enqueue(text: string, options?: { first?: boolean }): void {
		if (options?.first === true) this.queue.unshift(text);
		else this.queue.push(text);
	}

	close(): void {
		this.end();
	}

	private showPrompt(busy: boolean): void {
		this.ui.setPrompt(busy ? "steer> " : "you> ", busy ? BUSY_HINT : IDLE_HINT);
	}

	private echo(label: string, text: string): void {
		const shown = this.shownAs.get(text) ?? text;
		this.shownAs.delete(text);
		const [first = "", ...rest] = shown.split("\n");
		const indent = " ".repeat(label.length + 1);
		this.ui.store.commit(
			[`\n${this.style.bold(this.style.cyan(label))} ${first}`, ...rest.map((line) => `${indent}${line}`)].join("\n"),
		);
	}
}
