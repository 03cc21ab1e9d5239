import type { MessageOf, OmniMessage, Origin } from "@omniloop/client";
import { describeDone, describeRequestEnd } from "./describe.js";
import type { Item, PendingApproval, ToolItem, Transcript } from "./model.js";

/** A tool card's key: call ids are unique within a Session, a subagent's within its own. */
const toolKey = (callId: string, origin: Origin | undefined) => `tool:${origin?.sessionId ?? ""}:${callId}`;

/**
 * One batch of a Session's messages applied to its transcript. Messages at or below `lastSeq`
 * are skipped: a resumed stream may overlap what the tab already holds, and nothing shows twice.
 * The result shares every unchanged item with `prev` (React skips them), so a token costs the one
 * item it changes, not the whole chat.
 */
export function applyMessages(prev: Transcript, messages: readonly OmniMessage[]): Transcript {
	const draft = new Draft(prev);
	for (const message of messages) {
		if (message.seq <= draft.t.lastSeq) continue;
		draft.t.lastSeq = message.seq;
		draft.apply(message);
	}
	return draft.t;
}

/**
 * Drops the pending questions the server no longer lists: `correlationId` answered already, or
 * every one asked at or before `upToSeq` (the last seq this tab held when it asked the server) that
 * is not in `live`. One asked after it may be newer than the server's list and stays.
 */
export function dropDeadPending(
	prev: Transcript,
	dead: { correlationId: string } | { live: ReadonlySet<string>; upToSeq: number },
): Transcript {
	const pick =
		"correlationId" in dead
			? (p: PendingApproval) => p.correlationId === dead.correlationId
			: (p: PendingApproval) => p.seq !== undefined && p.seq <= dead.upToSeq && !dead.live.has(p.correlationId);
	if (!prev.pending.some(pick)) return prev;
	const draft = new Draft(prev);
	draft.dropPending(pick);
	return draft.t;
}

class Draft {
	readonly t: Transcript;
	private orderCopied = false;
	/** callId → tool key, across subagents, for nesting by `origin.parentCallId`. */
	private readonly calls = new Map<string, string>();

	constructor(prev: Transcript) {
		this.t = { ...prev, items: { ...prev.items } };
		for (const item of Object.values(prev.items)) if (item.kind === "tool") this.calls.set(item.callId, item.key);
	}

	apply(m: OmniMessage): void {
		switch (m.type) {
			case "user_text": {
				// A steer says so itself (docs/protocol.md, Messages): `text` is what the model read.
				const { steer } = m;
				const note = steer === undefined ? noteOf(m.text) : undefined;
				this.add(
					{
						kind: "user",
						key: m.id,
						seq: m.seq,
						text: steer ?? note?.body ?? m.text,
						steer: steer !== undefined,
						...(note === undefined ? {} : { note: note.tag }),
						...(m.origin === undefined ? {} : { delegated: true }),
					},
					m.origin,
					m.seq,
				);
				if (m.origin === undefined && steer === undefined && note === undefined) {
					// A new Task's prompt: a question still open from before it belongs to a Task that ended
					// without a `done` (the server went down while it waited); nobody can answer it now.
					this.dropPending(() => true);
					this.t.running = true;
				}
				return;
			}
			case "partial_text":
			case "partial_reasoning": {
				const kind = m.type === "partial_text" ? "assistant" : "reasoning";
				const item = this.t.items[m.id];
				if (item === undefined) this.add({ kind, key: m.id, text: m.delta, streaming: true }, m.origin);
				else if ((item.kind === "assistant" || item.kind === "reasoning") && item.streaming)
					this.t.items[m.id] = { ...item, text: item.text + m.delta };
				return;
			}
			case "assistant_text":
			case "reasoning": {
				const kind = m.type === "assistant_text" ? "assistant" : "reasoning";
				if (this.t.items[m.id] === undefined) this.add({ kind, key: m.id, text: m.text, streaming: false }, m.origin);
				else this.t.items[m.id] = { kind, key: m.id, text: m.text, streaming: false };
				return;
			}
			case "partial_tool_call": {
				const tool = this.tool(m.callId, m.name, m.origin);
				this.setTool(tool, { arguments: tool.arguments + m.delta });
				return;
			}
			case "tool_call":
				this.setTool(this.tool(m.callId, m.name, m.origin), { arguments: m.arguments });
				return;
			case "confirmation_required":
				this.setTool(this.tool(m.callId, m.name, m.origin), { state: "awaiting_approval" });
				if (!this.t.pending.some((p) => p.correlationId === m.correlationId)) {
					const { correlationId, callId, name, unsandboxed } = m;
					const asked = { correlationId, callId, name, arguments: m.arguments, seq: m.seq };
					this.t.pending = [...this.t.pending, unsandboxed === undefined ? asked : { ...asked, unsandboxed }];
				}
				return;
			case "approval_decision": {
				const tool = this.tool(m.callId, m.name, m.origin);
				// (`interrupted`: its card was dropped as over a moment before the decision of another tab came.)
				const waited = tool.state === "awaiting_approval" || tool.state === "interrupted";
				const state = m.decision === "deny" ? "denied" : waited ? "pending" : tool.state;
				this.setTool(tool, { state, decidedBy: m.by });
				this.t.pending = this.t.pending.filter((p) => p.callId !== m.callId && p.correlationId !== m.correlationId);
				return;
			}
			case "tool_start":
				this.setTool(this.tool(m.callId, m.name, m.origin), { state: "running" });
				return;
			case "tool_progress": {
				const tool = this.tool(m.callId, m.name, m.origin);
				this.setTool(tool, { progress: [...tool.progress.slice(-4), m.progress] });
				return;
			}
			case "tool_call_output":
				this.setTool(this.tool(m.callId, m.name, m.origin), { state: m.status, output: m.output });
				return;
			case "request_begin":
				if (m.origin === undefined) this.t.retry = undefined;
				if (m.origin === undefined && m.purpose !== "compaction") this.t.running = true;
				return;
			case "request_end":
				this.requestEnd(m);
				return;
			case "token_usage":
				// A failed request reports no tokens: the context is what the last answered one saw.
				if (m.origin === undefined && !this.t.compacting && m.request.total > 0) this.t.contextTokens = m.request.total;
				return;
			case "compaction_begin":
				this.t.compacting = true;
				this.notice(m, "info", `Compacting the context (${m.reason}, ${m.mode})…`);
				return;
			case "compaction_end":
				this.t.compacting = false;
				if (m.status === "ok") this.t.contextTokens = undefined;
				this.notice(
					m,
					m.status === "ok" ? "info" : "error",
					m.status === "ok"
						? "Context compacted: the conversation goes on from a summary."
						: `Compaction failed, the context is kept: ${m.error?.message ?? "no reason given"}`,
				);
				return;
			case "abort":
				// Its `done` (user_abort) follows and says so.
				return;
			case "done":
				this.done(m);
				return;
			default:
				this.fileEvent(m);
		}
	}

	/** Checkpoints, restores, rewinds and reloads of the instructions (docs/checkpoints.md). */
	private fileEvent(m: OmniMessage): void {
		switch (m.type) {
			case "checkpoint_created":
				if (m.reason === "turn") {
					const skipped = m.skipped.map((s) => s.path);
					this.add({ kind: "checkpoint", key: m.id, checkpointId: m.checkpointId, skipped }, m.origin, m.seq);
				}
				return;
			case "checkpoint_failed":
				this.notice(m, "warn", `No checkpoint of the files (${m.error.message}): this turn cannot be undone.`);
				return;
			case "checkpoint_restored": {
				const { checkpointId, before, restored, conflicts } = m;
				this.add({ kind: "restored", key: m.id, checkpointId, before, restored, conflicts }, m.origin, m.seq);
				return;
			}
			case "session_rewound":
				this.rewind(m.toSeq, m.seq);
				this.notice(m, "info", "Rewound: the conversation goes on from here.");
				return;
			case "instructions_loaded":
				this.notice(m, "info", `Instructions reloaded: ${m.files.map((f) => f.path).join(", ") || "no AGENTS.md"}.`);
				return;
		}
	}

	/**
	 * The items from `toSeq` on leave the chat, as they left the model's context — but for the
	 * rewind's own restore, recorded just before it (docs/protocol.md §5.6): what it did and kept
	 * stays in sight.
	 */
	private rewind(toSeq: number, rewoundSeq: number): void {
		const seqOf = this.t.seqOf;
		const items = this.t.items;
		const ownRestore = (key: string) => items[key]?.kind === "restored" && seqOf[key] === rewoundSeq - 1;
		this.t.order = this.t.order.filter((key) => (seqOf[key] ?? 0) < toSeq || ownRestore(key));
		this.t.seqOf = { ...seqOf };
		this.orderCopied = true;
	}

	private requestEnd(m: MessageOf<"request_end">): void {
		if (m.origin !== undefined) return;
		if (m.retry_in_ms !== undefined) {
			// The attempt's cut-off output is not kept (the Trace has none of it, so a reload would not
			// show it): the retry streams the answer again, and it must not show twice.
			this.dropCutOff();
			this.t.retry = {
				at: m.ts + m.retry_in_ms,
				attempt: m.attempt ?? 1,
				status: m.status,
				...(m.error === undefined ? {} : { error: m.error }),
			};
			return;
		}
		const text = describeRequestEnd(m);
		if (text !== undefined) this.notice(m, m.status === "auth" ? "warn" : "error", text);
	}

	/** Drops the pending questions `dead` picks; their calls, still awaiting, were interrupted. */
	dropPending(dead: (p: PendingApproval) => boolean): void {
		const gone = this.t.pending.filter(dead);
		if (gone.length === 0) return;
		this.t.pending = this.t.pending.filter((p) => !dead(p));
		const calls = new Set(gone.map((p) => p.callId));
		for (const item of Object.values(this.t.items))
			if (item.kind === "tool" && item.state === "awaiting_approval" && calls.has(item.callId))
				this.t.items[item.key] = { ...item, state: "interrupted" };
	}

	/** The top-level answer and reasoning still streaming: a failed attempt's partial output. */
	private dropCutOff(): void {
		const cut = new Set(
			this.t.order.filter((key) => {
				const item = this.t.items[key];
				return (item?.kind === "assistant" || item?.kind === "reasoning") && item.streaming;
			}),
		);
		if (cut.size === 0) return;
		if (!this.orderCopied) {
			this.t.seqOf = { ...this.t.seqOf };
			this.orderCopied = true;
		}
		this.t.order = this.t.order.filter((key) => !cut.has(key));
		for (const key of cut) delete this.t.items[key];
	}

	private done(m: MessageOf<"done">): void {
		if (m.origin !== undefined) return;
		this.t.running = false;
		this.t.compacting = false;
		this.t.retry = undefined;
		this.t.pending = [];
		// Output still streaming when a Stop or an error ended the Task is cut off: it stays in sight,
		// marked so, as no answer (the Trace keeps no partial output; a reload does not show it).
		const cutOff = m.reason === "user_abort" || m.reason === "error";
		// A Task that ended leaves no call waiting or running: the cards say how each one ended.
		for (const item of Object.values(this.t.items)) {
			if (item.kind === "tool" && (item.state === "running" || item.state === "awaiting_approval"))
				this.t.items[item.key] = { ...item, state: "interrupted" };
			if ((item.kind === "assistant" || item.kind === "reasoning") && item.streaming)
				this.t.items[item.key] = cutOff ? { ...item, streaming: false, stopped: true } : { ...item, streaming: false };
		}
		const text = describeDone(m);
		if (text !== undefined) this.notice(m, m.reason === "user_abort" ? "warn" : "error", text);
	}

	private tool(callId: string, name: string, origin: Origin | undefined): ToolItem {
		const key = toolKey(callId, origin);
		const existing = this.t.items[key];
		if (existing?.kind === "tool") return existing;
		const item: ToolItem = {
			kind: "tool",
			key,
			callId,
			name,
			arguments: "",
			state: "pending",
			progress: [],
			output: undefined,
			children: [],
		};
		this.add(item, origin);
		this.calls.set(callId, key);
		return item;
	}

	private setTool(tool: ToolItem, change: Partial<ToolItem>): void {
		this.t.items[tool.key] = { ...(this.t.items[tool.key] as ToolItem), ...change };
	}

	private notice(m: OmniMessage, tone: "info" | "warn" | "error", text: string): void {
		this.add({ kind: "notice", key: m.id, tone, text }, m.origin, m.seq);
	}

	/** A new item: under the tool card that started its subagent, else at the end of the chat. */
	private add(item: Item, origin: Origin | undefined, seq = this.t.lastSeq): void {
		this.t.items[item.key] = item;
		const parentKey = origin === undefined ? undefined : this.calls.get(origin.parentCallId);
		const parent = parentKey === undefined ? undefined : this.t.items[parentKey];
		if (parent?.kind === "tool") {
			this.t.items[parent.key] = { ...parent, children: [...parent.children, item.key] };
			return;
		}
		if (!this.orderCopied) {
			this.t.order = [...this.t.order];
			this.t.seqOf = { ...this.t.seqOf };
			this.orderCopied = true;
		}
		this.t.order.push(item.key);
		this.t.seqOf[item.key] = seq;
	}
}

/**
 * A whole text that is one `[tag]…[/tag]` block (or the older `<tag>…</tag>`): a note, not a
 * person's words — as core's `wholeMarker` reads it, which the browser cannot import.
 */
const NOTE = /^\s*(?:\[([a-z][a-z0-9_]*)\]([\s\S]*)\[\/\1\]|<([a-z][a-z0-9_]*)>([\s\S]*)<\/\3>)\s*$/;

function noteOf(text: string): { tag: string; body: string } | undefined {
	const match = NOTE.exec(text);
	if (match === null) return undefined;
	const tag = (match[1] ?? match[3]) as string;
	const body = (match[2] ?? match[4]) as string;
	// Two blocks of one tag (`[x]a[/x] [x]b[/x]`) are not one note.
	const close = match[1] === undefined ? `</${tag}>` : `[/${tag}]`;
	return body.includes(close) ? undefined : { tag, body: body.trim() };
}
