import { type Instance, render } from "ink";
import { App } from "./app.js";
import { Editor } from "./input/editor.js";
import { type KeyEvent, KeyReader } from "./input/keys.js";
import { type ApprovalBox, TuiStore } from "./store.js";

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";
/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const ESCAPE_WAIT_MS = 40;
const TICK_MS = 200;
/**
 * How long a one-key approval answer typed into an empty input is held: a further letter within
 * it makes the key the first letter of a message instead (as the web's TYPING_PAUSE_MS).
 * `OMNILOOP_ANSWER_PAUSE_MS` sets another (a slow typist's, or a test's on a loaded machine).
 */
export const ANSWER_PAUSE_MS = answerPause(process.env.OMNILOOP_ANSWER_PAUSE_MS);

function answerPause(given: string | undefined): number {
	const ms = Number(given);
	return given !== undefined && Number.isInteger(ms) && ms >= 0 && ms <= 60_000 ? ms : 700;
}

export type ApprovalKey = "allow" | "deny" | "always";

const ANSWER_KEYS: ReadonlyMap<string, ApprovalKey> = new Map([
	["y", "allow"],
	["n", "deny"],
	["a", "always"],
]);

export interface TerminalStreams {
	stdin: NodeJS.ReadStream;
	stdout: NodeJS.WriteStream;
}

/** What the owner of the UI is told about keys the editor does not take. */
export interface TuiHandlers {
	/** Enter: the message as written (never altered), and as shown (long pastes as their labels). */
	submit(text: string, shown: string): void;
	/** Ctrl-C with an empty input. */
	interrupt(): void;
	/** Escape (outside an approval): stops the running Task, if any; never leaves. */
	stop(): void;
	/** Ctrl-D with an empty input. */
	end(): void;
	/** Ctrl-O. */
	toggleReasoning(): void;
}

/**
 * The terminal while a chat runs: ink draws the screen from the store; this class owns the
 * keyboard. stdin is read in raw mode with bracketed paste on, so a pasted block arrives as one
 * event and is inserted as written, newlines included; typed keys go to the input box whatever
 * is streaming above it.
 */
export class TerminalUi {
	readonly store = new TuiStore();
	private readonly editor = new Editor();
	private readonly keys = new KeyReader();
	private readonly ink: Instance;
	private escapeTimer: NodeJS.Timeout | undefined;
	private ticker: NodeJS.Timeout | undefined;
	private statusRender: (() => string | undefined) | undefined;
	private approval: ((key: ApprovalKey | undefined) => void) | undefined;
	private handlers: TuiHandlers | undefined;
	private closed = false;
	/** Tab moved the keys to the approval box while a message is being written. */
	private approvalFocus = false;
	/** An answer key pressed into an empty input, waiting for a typing pause before it answers. */
	private held: { answer: ApprovalKey; letter: string; timer: NodeJS.Timeout } | undefined;

	constructor(private readonly streams: TerminalStreams) {
		this.ink = render(<App store={this.store} />, {
			stdout: streams.stdout,
			stdin: streams.stdin,
			exitOnCtrlC: false,
			// Anything that logs while the UI is drawn is printed above it, not into it.
			patchConsole: true,
		});
		streams.stdin.setRawMode(true);
		streams.stdin.setEncoding("utf8");
		streams.stdin.on("data", this.onData);
		// The terminal went away (hangup): the same as Ctrl-D.
		streams.stdin.on("end", this.onEnd);
		streams.stdin.resume();
		streams.stdout.write(BRACKETED_PASTE_ON);
	}

	get columns(): number {
		return this.streams.stdout.columns ?? 80;
	}

	setHandlers(handlers: TuiHandlers): void {
		this.handlers = handlers;
	}

	setPrompt(prompt: string, hint: string): void {
		this.store.update({ prompt, hint });
	}

	/** The status line: `render` is called again every tick while it is set; `undefined` removes it. */
	setStatus(render: (() => string | undefined) | undefined): void {
		this.statusRender = render;
		if (render === undefined) {
			if (this.ticker !== undefined) clearInterval(this.ticker);
			this.ticker = undefined;
			if (this.store.get().status !== undefined) this.store.update({ status: undefined });
			return;
		}
		this.tick();
		if (this.ticker === undefined) {
			this.ticker = setInterval(this.tick, TICK_MS);
			this.ticker.unref();
		}
	}

	private readonly tick = (): void => {
		const status = this.statusRender?.();
		if (status !== this.store.get().status) this.store.update({ status });
	};

	/** Shows an approval box and resolves with the key pressed; `undefined` when `signal` fires first. */
	askApproval(box: ApprovalBox, signal: AbortSignal): Promise<ApprovalKey | undefined> {
		if (signal.aborted || this.closed) return Promise.resolve(undefined);
		this.approvalFocus = false;
		this.store.update({ approval: box, approvalFocused: this.editor.text === "" });
		return new Promise((resolve) => {
			const finish = (key: ApprovalKey | undefined) => {
				if (this.approval !== finish) return;
				this.approval = undefined;
				this.dropHeld();
				this.approvalFocus = false;
				signal.removeEventListener("abort", onAbort);
				this.store.update({ approval: undefined, approvalFocused: false });
				resolve(key);
			};
			const onAbort = () => finish(undefined);
			signal.addEventListener("abort", onAbort, { once: true });
			this.approval = finish;
		});
	}

	/** Restores the terminal: cooked mode, no bracketed paste, the cursor back. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		this.setStatus(undefined);
		this.approval?.(undefined);
		this.store.update({ closed: true });
		// Drawn now, synchronously: the store's own update would be drawn after the unmount.
		this.ink.rerender(<App store={this.store} />);
		this.ink.unmount();
		this.ink.cleanup();
		this.streams.stdin.off("data", this.onData);
		this.streams.stdin.off("end", this.onEnd);
		if (this.streams.stdin.isTTY) this.streams.stdin.setRawMode(false);
		this.streams.stdin.pause();
		this.streams.stdout.write(BRACKETED_PASTE_OFF);
	}

	private readonly onData = (chunk: string): void => {
		if (this.escapeTimer !== undefined) clearTimeout(this.escapeTimer);
		for (const event of this.keys.push(chunk)) this.dispatch(event);
		this.escapeTimer = setTimeout(() => {
			for (const event of this.keys.flush()) this.dispatch(event);
		}, ESCAPE_WAIT_MS);
		this.escapeTimer.unref();
	};

	private readonly onEnd = (): void => {
		this.handlers?.end();
	};

	/**
	 * With an approval open, the keys are the box's only while it has the focus: the input is
	 * empty, or Tab moved the focus to it. Once a person has started a message, its letters stay
	 * in it ("and" must not answer "a", always) and Enter sends it.
	 */
	private get approvalFocused(): boolean {
		return this.approval !== undefined && (this.approvalFocus || this.editor.text === "");
	}

	private dispatch(event: KeyEvent): void {
		const held = this.held;
		if (held !== undefined) {
			this.dropHeld();
			// Enter right after the key answers at once.
			if (event.kind === "enter") {
				this.approval?.(held.answer);
				return;
			}
			// More typing: the key was the first letter of a message, and stays in it.
			if (event.kind === "text" || event.kind === "paste") {
				this.editor.apply({ kind: "text", text: held.letter });
				this.store.update({ editor: this.editor.state });
			}
			// Any other key drops the held answer and does what it does.
		}
		if (this.approval !== undefined && event.kind === "tab") {
			this.approvalFocus = !this.approvalFocused;
			this.showFocus();
			return;
		}
		if (this.approvalFocused && this.answerApproval(event)) return;
		this.dispatchToInput(event);
		this.showFocus();
	}

	private showFocus(): void {
		const focused = this.approvalFocused;
		if (focused !== this.store.get().approvalFocused) this.store.update({ approvalFocused: focused });
	}

	private dispatchToInput(event: KeyEvent): void {
		const handlers = this.handlers;
		const empty = this.editor.text === "";
		if (event.kind === "enter") {
			const { text, shown } = this.editor.take();
			this.store.update({ editor: this.editor.state });
			handlers?.submit(text, shown);
			return;
		}
		if (event.kind === "ctrl" && event.key === "c") {
			if (empty) handlers?.interrupt();
			else this.clearInput();
			return;
		}
		if (event.kind === "ctrl" && event.key === "d") {
			if (empty) handlers?.end();
			return;
		}
		if (event.kind === "ctrl" && event.key === "o") {
			handlers?.toggleReasoning();
			return;
		}
		if (event.kind === "escape") {
			handlers?.stop();
			return;
		}
		if (this.editor.apply(event)) this.store.update({ editor: this.editor.state });
	}

	private clearInput(): void {
		this.editor.take();
		this.store.update({ editor: this.editor.state });
	}

	/** ↑ ↓ PgUp PgDn move the approval box over what the call will do; false for any other key. */
	private scrollApproval(event: KeyEvent): boolean {
		const box = this.store.get().approval;
		if (box === undefined || box.lines.length <= box.room) return false;
		const page = Math.max(1, box.room - 1);
		const step =
			event.kind === "up"
				? -1
				: event.kind === "down"
					? 1
					: event.kind === "page-up"
						? -page
						: event.kind === "page-down"
							? page
							: undefined;
		if (step === undefined) return false;
		const top = Math.max(0, Math.min(box.top + step, box.lines.length - box.room));
		if (top !== box.top) this.store.update({ approval: { ...box, top } });
		return true;
	}

	/**
	 * One key answers (y, n, a; Escape denies); Ctrl-C interrupts the Task, which cancels the
	 * question; Tab (handled before) gives the keys back to the message. Anything else is not an
	 * answer and goes to the input box: nothing typed is lost.
	 */
	private answerApproval(event: KeyEvent): boolean {
		if (event.kind === "ctrl" && event.key === "c") {
			this.handlers?.interrupt();
			return true;
		}
		if (event.kind === "escape") {
			this.approval?.("deny");
			return true;
		}
		if (this.scrollApproval(event)) return true;
		// A burst of several characters is typing, not an answer.
		if (event.kind !== "text" || event.text.length !== 1) return false;
		const answer = ANSWER_KEYS.get(event.text.toLowerCase());
		if (answer === undefined) return false;
		if (this.editor.text !== "") {
			// Tab gave the box the keys while a message is written: the key answers at once.
			this.approval?.(answer);
			return true;
		}
		// Into an empty input the key may be the first letter of a steer ("and also…"): it
		// answers only after a pause in typing; a further letter within it makes it text.
		const letter = event.text;
		const timer = setTimeout(() => {
			if (this.held?.timer !== timer) return;
			this.dropHeld();
			this.approval?.(answer);
		}, ANSWER_PAUSE_MS);
		timer.unref();
		this.held = { answer, letter, timer };
		this.store.update({ approvalHeld: `${letter} → ${answer}` });
		return true;
	}

	private dropHeld(): void {
		if (this.held === undefined) return;
		clearTimeout(this.held.timer);
		this.held = undefined;
		this.store.update({ approvalHeld: undefined });
	}
}
