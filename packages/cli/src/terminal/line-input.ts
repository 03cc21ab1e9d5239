import { createInterface, type Interface } from "node:readline";
import type { Screen } from "./screen.js";

/** Decides what a typed line means while something runs: true when it was used, false to queue it. */
export type LineRoute = (line: string) => boolean;

/** Where a conversation reads its messages: lines from a pipe, or the terminal UI's input box. */
export interface ChatInput {
	/** Resolves with the next message (one typed ahead first); `undefined` at end of input. */
	next(prompt: string): Promise<string | undefined>;
	/**
	 * Asks the person a question between Tasks (restore these files? which message?), shown as
	 * such; resolves with the answer, `undefined` at end of input. On a terminal only a line typed
	 * after the question answers it (one typed before is a message); over a pipe the next line does.
	 */
	question(text: string): Promise<string | undefined>;
	/** What a message means while something runs (steering); `undefined` to queue them. */
	setRoute(route: LineRoute | undefined): void;
	/**
	 * Queues a message, shown as typed when its prompt comes. `first`: before any line already
	 * queued (`omniloop "some task"` goes ahead of lines piped in while the chat started).
	 */
	enqueue(text: string, options?: { first?: boolean }): void;
	close(): void;
}

export interface InputStreams {
	stdin: NodeJS.ReadableStream & { isTTY?: boolean };
	/** The raw stderr: readline draws its prompt there on a terminal. */
	stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

interface Pending {
	resolve(line: string | undefined): void;
}

/**
 * Lines from stdin, one reader for the whole process. A line goes, in this order, to: a pending
 * question (an approval: "while an approval is pending, the next input line is its answer"), a
 * pending prompt, the current route (steering while a Task runs), else a queue read by the next
 * prompt or question. Works the same for a terminal and a pipe; `undefined` means end of input.
 */
export class LineInput implements ChatInput {
	/** A terminal on both ends: readline edits the line and turns Ctrl-C into its own event. */
	readonly terminal: boolean;
	private readonly rl: Interface;
	private readonly queue: string[] = [];
	private answering: Pending | undefined;
	private prompt: Pending | undefined;
	private route: LineRoute | undefined;
	private closed = false;

	constructor(
		streams: InputStreams,
		private readonly screen: Screen,
		onInterrupt: () => void,
	) {
		this.terminal = streams.stdin.isTTY === true && streams.stderr.isTTY === true;
		this.rl = createInterface({
			input: streams.stdin,
			...(this.terminal ? { output: streams.stderr } : {}),
			terminal: this.terminal,
		});
		this.rl.on("line", (line) => this.receive(line));
		this.rl.on("close", () => this.onEnd());
		// In raw mode Ctrl-C is a keypress, not a signal: readline reports it here.
		if (this.terminal) this.rl.on("SIGINT", onInterrupt);
	}

	/** Whether stdin has ended. */
	get ended(): boolean {
		return this.closed;
	}

	setRoute(route: LineRoute | undefined): void {
		this.route = route;
	}

	enqueue(text: string, options?: { first?: boolean }): void {
		if (options?.first === true) this.queue.unshift(text);
		else this.queue.push(text);
	}

	/** Shows `text` as a prompt and resolves with the next line not used elsewhere (queued first). */
	next(text: string): Promise<string | undefined> {
		return this.wait(text, true, (pending) => {
			this.prompt = pending;
		});
	}

	question(text: string): Promise<string | undefined> {
		return this.wait(text, !this.terminal, (pending) => {
			this.answering = pending;
		});
	}

	/**
	 * Asks a question and resolves with the answer; `undefined` at end of input or when `signal`
	 * fires. `fromQueue`: a line typed before the question was asked may answer it (`run`, where
	 * lines are only ever answers); in `chat` queued lines are the next prompts instead.
	 */
	ask(text: string, options: { signal: AbortSignal; fromQueue: boolean }): Promise<string | undefined> {
		if (options.signal.aborted) return Promise.resolve(undefined);
		return this.wait(text, options.fromQueue, (pending) => {
			this.answering = pending;
			options.signal.addEventListener(
				"abort",
				() => {
					if (this.answering !== pending) return;
					this.answering = undefined;
					this.endPromptLine();
					pending.resolve(undefined);
				},
				{ once: true },
			);
		});
	}

	close(): void {
		this.rl.close();
	}

	private wait(text: string, fromQueue: boolean, register: (pending: Pending) => void): Promise<string | undefined> {
		const queued = fromQueue ? this.queue.shift() : undefined;
		if (!this.screen.json) this.screen.out.ensureNewline();
		if (queued !== undefined) {
			// Shown with its prompt, so a transcript reads as a conversation.
			this.screen.err.write(`${text}${queued}\n`);
			return Promise.resolve(queued);
		}
		if (this.closed) return Promise.resolve(undefined);
		this.showPrompt(text);
		return new Promise((resolve) => register({ resolve }));
	}

	private showPrompt(text: string): void {
		if (this.terminal) {
			this.rl.setPrompt(text);
			this.rl.prompt();
		} else this.screen.err.write(text);
	}

	private receive(line: string): void {
		const pending = this.answering ?? this.prompt;
		if (pending !== undefined) {
			if (pending === this.answering) this.answering = undefined;
			else this.prompt = undefined;
			// A pipe does not echo: write the answer after its prompt, as a terminal would show it.
			if (!this.terminal) this.screen.err.write(`${line}\n`);
			else this.rl.setPrompt("");
			pending.resolve(line);
			return;
		}
		if (this.route?.(line)) return;
		this.queue.push(line);
	}

	private onEnd(): void {
		this.closed = true;
		const pending = [this.answering, this.prompt];
		this.answering = undefined;
		this.prompt = undefined;
		if (pending.some((p) => p !== undefined)) this.endPromptLine();
		for (const p of pending) p?.resolve(undefined);
	}

	private endPromptLine(): void {
		if (this.terminal) {
			this.rl.setPrompt("");
			this.screen.err.write("\n");
		} else this.screen.err.ensureNewline();
	}
}
