import type { OmniMessage, RequestEnd, ToolCall } from "@omniloop/core";
import type { Screen } from "../terminal/screen.js";
import type { Style } from "../terminal/style.js";
import { describeError, HumanView, type HumanViewOptions } from "../view/human-view.js";
import { summarizeArguments } from "../view/tool-summary.js";
import type { View } from "../view/view.js";
import { MarkdownLines } from "./markdown/markdown.js";
import { StatusLine } from "./status-line.js";
import type { TerminalUi } from "./terminal-ui.js";

const REASONING_TAIL = 3;
/** More than the live area shows of the reasoning's last lines. */
const REASONING_TAIL_CHARS = 4_000;

/** The message being streamed: its unfinished last line, and whether any of it is written yet. */
interface Streaming {
	kind: "text" | "reasoning";
	id: string;
	/** Text: the unfinished line. Reasoning: only its last lines, what the live area shows. */
	raw: string;
	/** Reasoning: every delta, joined once it is done (the live area never needs the whole). */
	pieces: string[];
	markdown: MarkdownLines;
	written: boolean;
}

/**
 * The conversation in the terminal UI. Answers stream as markdown: each finished line is
 * rendered and written above the input box, the unfinished one stays in the live area.
 * Reasoning streams dimmed in the live area and is folded to one line when done (Ctrl-O
 * unfolds). While the model has not answered, a line counts the seconds; a reconnect wait
 * counts down. Everything else is the line view's, written into the conversation.
 */
export class TuiView implements View {
	private readonly lines: HumanView;
	private readonly style: Style;
	private readonly streamed = new Set<string>();
	private current: Streaming | undefined;
	private lastReasoning: string | undefined;
	private expandReasoning = false;
	private readonly retryMax: { turn: number; compaction: number };
	/** Showing a Trace (--resume): nothing is waited for, so nothing is counted live. */
	private readonly replay: boolean;
	private readonly status: StatusLine;
	/** Each call's one-line summary, for the "running …" status. */
	private readonly callLabels = new Map<string, string>();
	private purpose: "turn" | "compaction" = "turn";
	/** The view is adding its own lines to the conversation. */
	private committing = false;

	constructor(
		private readonly ui: TerminalUi,
		screen: Screen,
		options: HumanViewOptions,
	) {
		this.lines = new HumanView(screen, options);
		this.style = screen.out.style;
		this.retryMax = options.maxRetries;
		this.replay = options.replay;
		this.status = new StatusLine(ui, this.style);
		ui.store.onBeforeCommit(() => this.breakLine());
	}

	show(message: OmniMessage): void {
		if (message.origin !== undefined) {
			this.lines.show(message);
			return;
		}
		switch (message.type) {
			case "partial_text":
			case "partial_reasoning":
				this.status.answered();
				this.append(message.type === "partial_text" ? "text" : "reasoning", message.id, message.delta);
				return;
			case "assistant_text":
			case "reasoning": {
				this.status.answered();
				const kind = message.type === "assistant_text" ? "text" : "reasoning";
				if (!this.streamed.has(message.id)) this.append(kind, message.id, message.text);
				this.finish();
				return;
			}
			case "request_begin":
				this.purpose = message.purpose ?? "turn";
				this.lines.show(message);
				if (!this.replay)
					this.status.requestSent(this.purpose === "compaction" ? "waiting for the summary" : "waiting for the model");
				return;
			case "request_end":
				this.status.answered();
				this.finish();
				if (message.retry_in_ms === undefined) this.lines.show(message);
				else if (this.replay)
					this.ui.store.commit(this.style.yellow(`connection problem (${describeError(message.error)}); retried`));
				else this.startCountdown(message, message.retry_in_ms);
				return;
			case "tool_call":
				this.status.answered();
				this.showToolCall(message);
				return;
			case "tool_start":
				if (!this.replay) this.status.toolStarted(message.callId, this.callLabels.get(message.callId) ?? message.name);
				return;
			case "tool_call_output":
				this.status.toolEnded(message.callId);
				this.finish();
				this.lines.show(message);
				return;
			case "done":
				this.status.clear();
				this.callLabels.clear();
				this.finish();
				this.streamed.clear();
				this.lines.show(message);
				return;
			default:
				this.finish();
				this.lines.show(message);
		}
	}

	showToolCall(call: ToolCall): void {
		this.finish();
		this.callLabels.set(call.callId, `${call.name} ${summarizeArguments(call.name, call.arguments)}`);
		this.lines.showToolCall(call);
	}

	end(): void {
		this.status.clear();
		this.finish();
		this.lines.end();
	}

	/** Ctrl-O: reasoning is shown whole from now on (and the last one now), or folded again. */
	toggleReasoning(): void {
		this.expandReasoning = !this.expandReasoning;
		if (this.expandReasoning && this.lastReasoning !== undefined) this.commitReasoning(this.lastReasoning);
		else this.ui.store.commit(this.style.dim(this.expandReasoning ? "(reasoning: shown)" : "(reasoning: folded)"));
	}

	private append(kind: "text" | "reasoning", id: string, delta: string): void {
		if (this.current !== undefined && (this.current.id !== id || this.current.kind !== kind)) this.finish();
		if (this.current === undefined) {
			const markdown = new MarkdownLines(this.style, () => this.ui.columns);
			this.current = { kind, id, raw: "", pieces: [], markdown, written: false };
		}
		this.streamed.add(id);
		const current = this.current;
		if (kind === "text") {
			current.raw += delta;
			const end = current.raw.lastIndexOf("\n");
			if (end !== -1) {
				const done = current.raw.slice(0, end).split("\n");
				current.raw = current.raw.slice(end + 1);
				this.write(
					current,
					done.flatMap((line) => current.markdown.push(line)),
				);
			}
			this.commitWrapped(current);
			this.ui.store.update({ live: current.raw === "" ? [] : [current.markdown.preview(current.raw)] });
			return;
		}
		// Per delta only the tail is kept up to date: its last lines, bounded in length too.
		current.pieces.push(delta);
		current.raw = lastLines(`${current.raw}${delta}`, REASONING_TAIL + 1)
			.join("\n")
			.slice(-REASONING_TAIL_CHARS);
		const tail = lastLines(current.raw.trimEnd(), REASONING_TAIL);
		this.ui.store.update({ live: [this.style.dim("thinking…"), ...tail.map((line) => this.style.dim(`┊ ${line}`))] });
	}

	/**
	 * A paragraph longer than the terminal is wide is written out a screen line at a time, broken
	 * at a space: the live area stays one line, and what is typed meanwhile appears below the
	 * answer so far rather than above it. Blocks that carry indentation (lists, code) are left whole.
	 */
	private commitWrapped(current: Streaming): void {
		const width = this.ui.columns - 1;
		if (current.markdown.inCode || /^\s*([-*+>#|]|\d+[.)])/.test(current.raw)) return;
		while (current.raw.length > width) {
			const cut = breakBefore(current.raw, width);
			if (cut <= 0) return;
			this.write(current, current.markdown.push(current.raw.slice(0, cut)));
			current.raw = current.raw.slice(cut + 1);
		}
	}

	/**
	 * Something else (a steer, a notice) is about to be written into the conversation while an
	 * answer streams: the answer's line so far is written out first, and the rest continues
	 * below it, so the answer never appears below what was typed meanwhile. Not inside a code
	 * block, nor for a line that may be markdown's own (a fence, a table row, a list item): half of
	 * it, pushed as a line, would leave a fence open for the rest of the answer or a row cut.
	 */
	private breakLine(): void {
		const current = this.current;
		if (this.committing || current?.kind !== "text" || current.raw === "") return;
		if (current.markdown.inCode || /^\s*([-*+>#|`~]|\d+[.)])/.test(current.raw)) return;
		const raw = current.raw;
		current.raw = "";
		this.write(current, current.markdown.push(raw));
		this.ui.store.update({ live: [] });
	}

	/** The streaming message is complete (or something else is shown): its rest is written out. */
	private finish(): void {
		const current = this.current;
		if (current === undefined) return;
		this.current = undefined;
		this.ui.store.update({ live: [] });
		if (current.kind === "text") {
			const rest = current.raw === "" ? [] : current.markdown.push(current.raw);
			this.write(current, [...rest, ...current.markdown.end()]);
			return;
		}
		const text = current.pieces.join("").trim();
		if (text === "") return;
		this.lastReasoning = text;
		if (this.expandReasoning) this.commitReasoning(text);
		else {
			const count = text.split("\n").length;
			const first = text.split("\n")[0] ?? "";
			const room = Math.max(10, this.ui.columns - 40);
			const shown = first.length > room ? `${first.slice(0, room - 1)}…` : first;
			this.ui.store.commit(
				this.style.dim(`▸ reasoning: ${shown}${count > 1 ? ` (+${count - 1} lines)` : ""} · Ctrl-O unfolds`),
			);
		}
	}

	/** Finished lines of an answer; a blank line sets the answer apart from what came before it. */
	private write(current: Streaming, rendered: readonly string[]): void {
		if (rendered.length === 0) return;
		const lines = rendered.join("\n");
		this.committing = true;
		try {
			this.ui.store.commit(current.written ? lines : `\n${lines}`);
		} finally {
			this.committing = false;
		}
		current.written = true;
	}

	private commitReasoning(text: string): void {
		this.ui.store.commit(
			text
				.split("\n")
				.map((line) => this.style.dim(`┊ ${line}`))
				.join("\n"),
		);
	}

	private startCountdown(message: RequestEnd, waitMs: number): void {
		const max = this.purpose === "compaction" ? this.retryMax.compaction : this.retryMax.turn;
		const attempt = message.attempt === undefined ? "" : ` (attempt ${message.attempt} of ${max})`;
		const reason = describeError(message.error);
		this.ui.store.commit(this.style.yellow(`connection problem (${reason})`));
		this.status.retrying(waitMs, attempt);
	}
}

/**
 * The last space before `width` where the line can be cut without splitting a code span or
 * emphasis (each half must render on its own); -1 when there is none.
 */
function breakBefore(text: string, width: number): number {
	for (let cut = text.lastIndexOf(" ", width); cut > 0; cut = text.lastIndexOf(" ", cut - 1)) {
		const head = text.slice(0, cut);
		const count = (marker: string) => head.split(marker).length - 1;
		if (count("`") % 2 === 0 && count("**") % 2 === 0 && count("__") % 2 === 0) return cut;
	}
	return -1;
}

/** The last `count` lines of `text`, found from its end: reasoning grows with every delta. */
function lastLines(text: string, count: number): string[] {
	let start = text.length;
	for (let i = 0; i < count && start !== -1; i++) start = start === 0 ? -1 : text.lastIndexOf("\n", start - 1);
	return text.slice(start + 1).split("\n");
}
