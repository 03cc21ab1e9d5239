import { type EditorState, EMPTY_EDITOR } from "./input/editor.js";

/** A finished piece of the conversation: written once above the live area and never redrawn. */
export interface Entry {
	readonly id: number;
	readonly text: string;
}

/**
 * An approval waiting for its key, in a box of its own. It holds every line of what the call will
 * do; the box shows `room` of them from `top`, and the person scrolls the rest into view.
 */
export interface ApprovalBox {
	readonly title: string;
	readonly lines: readonly string[];
	/** The first line shown. */
	readonly top: number;
	/** How many lines the box shows at once. */
	readonly room: number;
}

/** Everything the terminal UI shows, as one immutable value per change. */
export interface TuiSnapshot {
	readonly entries: Entry[];
	/** The streaming message's unfinished tail, rendered. */
	readonly live: readonly string[];
	/** The waiting indicator or the reconnect countdown. */
	readonly status: string | undefined;
	readonly approval: ApprovalBox | undefined;
	/** Whether keys answer the approval (else they go to the message being written). */
	readonly approvalFocused: boolean;
	/** An answer key held for a typing pause ("a → always"), before it answers. */
	readonly approvalHeld: string | undefined;
	readonly editor: EditorState;
	readonly prompt: string;
	readonly hint: string;
	/** The UI is closing: only the finished conversation stays on the screen. */
	readonly closed: boolean;
}

const INITIAL: TuiSnapshot = {
	entries: [],
	live: [],
	status: undefined,
	approval: undefined,
	approvalFocused: false,
	approvalHeld: undefined,
	editor: EMPTY_EDITOR,
	prompt: "you> ",
	hint: "",
	closed: false,
};

/** The UI's state outside React, so the CLI's classes change it and the components only read it. */
export class TuiStore {
	private snapshot = INITIAL;
	private nextId = 0;
	private readonly listeners = new Set<() => void>();
	private readonly beforeCommits = new Set<() => void>();

	readonly get = (): TuiSnapshot => this.snapshot;

	readonly subscribe = (listener: () => void): (() => void) => {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	};

	update(patch: Partial<Omit<TuiSnapshot, "entries">>): void {
		this.snapshot = { ...this.snapshot, ...patch };
		this.notify();
	}

	/**
	 * `listener` runs before anything is added to the finished conversation: the streaming view
	 * writes out the line it is still receiving, so what follows is not shown above it.
	 */
	onBeforeCommit(listener: () => void): () => void {
		this.beforeCommits.add(listener);
		return () => this.beforeCommits.delete(listener);
	}

	/** Adds lines to the finished conversation. */
	commit(text: string): void {
		for (const listener of this.beforeCommits) listener();
		const entry = { id: this.nextId++, text };
		this.snapshot = { ...this.snapshot, entries: [...this.snapshot.entries, entry] };
		this.notify();
	}

	private notify(): void {
		for (const listener of this.listeners) listener();
	}
}
