import type {
	DoneReason,
	ErrorInfo,
	OmniMessage,
	Origin,
	RequestEnd,
	ToolCall,
	ToolCallOutput,
	UserText,
} from "@omniloop/core";
import { parseMarkers } from "@omniloop/core/internal";
import { Countdown, formatWait } from "../terminal/countdown.js";
import type { Screen, TextSink } from "../terminal/screen.js";
import { fileEventLines, isFileEvent } from "./file-events.js";
import { shorten, summarizeArguments, trimOutput } from "./tool-summary.js";
import { describeEnding, formatTaskUsage, formatUsage } from "./usage-format.js";
import type { View } from "./view.js";

/** A tool output's lines on screen: its first 2 and its last 3, the count of those between. */
const OUTPUT_LINES = 5;

export interface HumanViewOptions {
	/** Replaying a Trace: show what the user typed and decided, which the live view leaves to the terminal. */
	replay: boolean;
	/** The reconnect limits, for "attempt 3 of 5". */
	maxRetries: { turn: number; compaction: number };
	/** Which credential to set, for an auth failure. */
	credentialHint: () => string;
	/**
	 * Only the answer's text goes to stdout; reasoning, calls, notices, errors and usage go to
	 * stderr (`omniloop run` with stdout not a terminal: a script reads the answer alone).
	 */
	answerOnlyOnStdout?: boolean;
	/** A live chat, where /undo is a command: a checkpoint's line says so (never in a replay). */
	undoHint?: boolean;
}

/**
 * The conversation for people: text streams as it arrives, reasoning dimmed, a tool call on one
 * line with its output trimmed, reconnect waits counted down, usage at the end of each Task.
 * Subagents' messages are shown whole (not streamed), indented and labelled with their agent.
 */
export class HumanView implements View {
	/** The answer's text. */
	private readonly answer: TextSink;
	/** Everything else: stdout too, unless only the answer goes there. */
	private readonly out: TextSink;
	/** Messages whose deltas were shown: their complete form is not shown again. */
	private readonly streamed = new Set<string>();
	/** Calls already shown (ahead of their message, for an approval question), with their one-line summary. */
	private readonly shownCalls = new Map<string, string>();
	/** Calls refused by the policy or for want of an answer: their `denied` output says nothing more. */
	private readonly refusedByPolicy = new Set<string>();
	/** The call the last line written belongs to: its output needs no label while they stay together. */
	private lastLineCall: string | undefined;
	private streaming: "text" | "reasoning" | undefined;
	private purpose: "turn" | "compaction" = "turn";
	private authShown = false;
	private readonly countdown: Countdown;
	private readonly undoHint: boolean;

	constructor(
		screen: Screen,
		private readonly options: HumanViewOptions,
	) {
		this.answer = screen.out;
		this.out = options.answerOnlyOnStdout === true ? screen.err : screen.out;
		this.countdown = new Countdown(this.out);
		this.undoHint = options.undoHint === true && !options.replay;
	}

	show(message: OmniMessage): void {
		this.countdown.stop();
		if (message.origin !== undefined) {
			this.showNested(message, message.origin);
			return;
		}
		if (isFileEvent(message)) {
			for (const line of fileEventLines(message, this.out.style, this.undoHint)) this.line(line);
			return;
		}
		switch (message.type) {
			case "partial_text":
				this.stream("text", message.id, message.delta);
				return;
			case "partial_reasoning":
				this.stream("reasoning", message.id, this.out.style.dim(message.delta));
				return;
			case "assistant_text":
				if (!this.streamed.has(message.id)) this.stream("text", message.id, message.text);
				this.streaming = undefined;
				return;
			case "reasoning":
				if (!this.streamed.has(message.id)) this.stream("reasoning", message.id, this.out.style.dim(message.text));
				this.streaming = undefined;
				return;
			case "user_text":
				this.showUserText(message);
				return;
			case "tool_call":
				this.showToolCall(message);
				return;
			case "approval_decision":
				if (message.by !== "user" && message.decision === "deny") {
					this.refusedByPolicy.add(message.callId);
					const why = message.by === "policy" ? "refused by the approval policy" : "denied: nobody answered in time";
					this.callLines(message.callId, [this.out.style.yellow(`  ✗ ${why}`)]);
				} else if (this.options.replay && message.by === "user")
					this.line(this.out.style.dim(`  ${message.decision === "allow" ? "allowed" : "denied"} by the user`));
				else if (this.options.replay && message.by === "always")
					this.line(this.out.style.dim(`  allowed (always for ${message.name} in this Session)`));
				return;
			case "tool_progress":
				this.callLines(message.callId, [this.out.style.dim(`  … ${shorten(message.progress, this.out.columns - 6)}`)]);
				return;
			case "tool_call_output":
				// A refusal by the policy (or a timeout) was said once, by its decision.
				if (message.status === "denied" && this.refusedByPolicy.delete(message.callId)) return;
				this.callLines(message.callId, this.outputLines(message));
				return;
			case "request_begin":
				this.purpose = message.purpose ?? "turn";
				return;
			case "request_end":
				this.showRequestEnd(message);
				return;
			case "compaction_begin":
				this.line(this.out.style.dim(`⋯ compacting the conversation (${message.reason}, ${message.mode})…`));
				return;
			case "compaction_end":
				this.line(
					message.status === "ok"
						? this.out.style.dim("⋯ compacted: the conversation goes on from here in a fresh context")
						: this.out.style.yellow(
								`⋯ compaction failed: ${message.error?.message ?? "unknown error"}; the conversation is unchanged`,
							),
				);
				return;
			case "done":
				this.showDone(message.reason, message.error, formatTaskUsage(message.usage, message.sessionUsage));
				return;
			case "partial_tool_call":
			case "tool_start":
			case "token_usage":
			case "abort":
				return;
		}
	}

	showToolCall(call: ToolCall): void {
		if (this.shownCalls.has(call.callId)) return;
		this.countdown.stop();
		const args = summarizeArguments(call.name, call.arguments);
		this.shownCalls.set(call.callId, `${call.name} ${args}`);
		const style = this.out.style;
		const text = `${style.cyan("→")} ${style.bold(call.name)} ${args}`;
		if (call.origin === undefined) this.line(text);
		else this.labelled(call.origin, text);
		this.lastLineCall = call.callId;
	}

	end(): void {
		this.countdown.stop();
		this.answer.ensureNewline();
		this.out.ensureNewline();
		this.streaming = undefined;
	}

	private stream(kind: "text" | "reasoning", id: string, text: string): void {
		const sink = kind === "text" ? this.answer : this.out;
		if (this.streaming !== kind) sink.ensureNewline();
		// On a terminal of their own, what else was written ends its line before the answer goes on.
		if (sink !== this.out) this.out.ensureNewline();
		this.streaming = kind;
		this.streamed.add(id);
		sink.write(text);
	}

	private line(text: string): void {
		this.streaming = undefined;
		this.lastLineCall = undefined;
		// The answer on stdout, the rest on stderr: both may end up in one file or terminal (2>&1, a
		// tee), so the answer's line ends before another begins.
		if (this.answer !== this.out) this.answer.ensureNewline();
		this.out.line(text);
	}

	/**
	 * Lines about a call (its output, progress, refusal). When something else was written since
	 * the call — another call of a parallel batch, its output — they are labelled with their call.
	 */
	private callLines(callId: string, lines: readonly string[]): void {
		const summary = this.shownCalls.get(callId);
		if (this.lastLineCall !== callId && summary !== undefined) {
			this.line(this.out.style.dim(`  ↳ ${shorten(summary, this.out.columns - 6)}`));
		}
		for (const line of lines) this.line(line);
		this.lastLineCall = callId;
	}

	private showUserText(message: UserText): void {
		const style = this.out.style;
		if (message.steer !== undefined) {
			this.line(style.dim(this.options.replay ? `you (steering)> ${message.steer}` : "↳ steering sent to the model"));
			return;
		}
		const [block] = parseMarkers(message.text);
		if (block?.tag === "context_summary") {
			const lines = trimOutput(block.body.trim(), OUTPUT_LINES, this.out.columns - 4);
			for (const line of ["summary:", ...lines]) this.line(style.dim(`  ${line}`));
		} else if (block?.tag === "turn_aborted") {
			if (this.options.replay) this.line(style.dim("(the interrupted turn is carried over)"));
		} else if (this.options.replay) {
			this.line(`${style.bold("you>")} ${message.text}`);
		}
	}

	private outputLines(message: ToolCallOutput): string[] {
		const style = this.out.style;
		const width = this.out.columns - 4;
		switch (message.status) {
			case "ok":
				return trimOutput(message.output, OUTPUT_LINES, width).map((line) => style.dim(`  │ ${line}`));
			case "error":
				return trimOutput(message.output, OUTPUT_LINES, width).map((line, i) =>
					style.red(`  ${i === 0 ? "✗" : "│"} ${line}`),
				);
			case "denied":
				return [style.yellow("  ✗ denied")];
			case "interrupted":
				return [style.yellow("  ✗ interrupted")];
		}
	}

	private showRequestEnd(message: RequestEnd): void {
		if (message.retry_in_ms !== undefined) {
			const waitMs = message.retry_in_ms;
			this.countdown.start(waitMs, (remaining) => this.retryLine(message, remaining, waitMs));
		} else if (message.status === "auth") {
			this.authShown = true;
			this.line(
				this.out.style.red(
					`authentication failed (${describeError(message.error)}). ${this.options.credentialHint()}`.trimEnd(),
				),
			);
		}
	}

	private retryLine(message: RequestEnd, remainingMs: number, waitMs: number): string {
		const live = this.out.isTTY;
		const max = this.purpose === "compaction" ? this.options.maxRetries.compaction : this.options.maxRetries.turn;
		const attempt = message.attempt === undefined ? "" : ` (attempt ${message.attempt} of ${max})`;
		const when = !live
			? `retrying in ${formatWait(waitMs)}`
			: remainingMs === 0
				? "retrying now"
				: `retrying in ${formatWait(remainingMs, true)}`;
		const rest = `; ${when}${attempt}`;
		// A live line must fit the terminal: a wrapped line cannot be rewritten in place.
		const room = live ? Math.max(12, this.out.columns - 1 - rest.length - "connection problem ()".length) : 200;
		return this.out.style.yellow(`connection problem (${shorten(describeError(message.error), room)})${rest}`);
	}

	private showDone(reason: DoneReason, error: ErrorInfo | undefined, usage: string): void {
		this.end();
		const style = this.out.style;
		if (error !== undefined && !(this.authShown && error.kind === "auth"))
			this.out.line(style.red(`error: ${describeError(error)}`));
		this.authShown = false;
		// The Task is over: its ids will not come again.
		this.streamed.clear();
		this.shownCalls.clear();
		this.out.line(style.dim(`── ${describeEnding(reason)} · ${usage}`));
	}

	/** A subagent's messages, whole and labelled: interleaved deltas from several agents would be unreadable. */
	private showNested(message: OmniMessage, origin: Origin): void {
		const style = this.out.style;
		switch (message.type) {
			case "assistant_text":
				for (const line of message.text.split("\n")) this.labelled(origin, line);
				return;
			case "reasoning":
				this.labelled(origin, style.dim(shorten(message.text.replace(/\s+/g, " "), this.out.columns - 20)));
				return;
			case "tool_call":
				this.showToolCall(message);
				return;
			case "tool_call_output":
				for (const line of this.outputLines(message)) this.labelled(origin, line);
				return;
			case "request_end":
				if (message.retry_in_ms !== undefined) {
					const reason = describeError(message.error);
					this.labelled(
						origin,
						style.yellow(`connection problem (${reason}); retrying in ${formatWait(message.retry_in_ms)}`),
					);
				}
				return;
			case "done":
				this.labelled(origin, style.dim(`${describeEnding(message.reason)} · ${formatUsage(message.usage)}`));
				return;
			default:
				return;
		}
	}

	private labelled(origin: Origin, text: string): void {
		this.line(`${this.out.style.dim(`  [${origin.agentId}]`)} ${text}`);
	}
}

/** `HTTP 503: Service Unavailable`, or the error's class and first line. */
export function describeError(error: ErrorInfo | undefined): string {
	if (error === undefined) return "unknown error";
	// Long enough for a URL, a config file's path and the reason after them.
	const message = shorten(error.message.split("\n")[0]?.trim() ?? "", 400);
	if (error.status !== undefined) return message === "" ? `HTTP ${error.status}` : `HTTP ${error.status}: ${message}`;
	// An unreachable server's message says what happened; its class ("timeout": retried as one) would mislead.
	if (message !== "" && (error.code === "connection_refused" || error.code === "unknown_host")) return message;
	return message === "" ? error.kind : `${error.kind}: ${message}`;
}
