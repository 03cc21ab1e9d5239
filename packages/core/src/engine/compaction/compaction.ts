import { join } from "node:path";
import { makeMessage, newMessageId, userText } from "../../messages/constructors.js";
import { wholeMarker, writeMarker } from "../../messages/markers.js";
import type { CompactionReason, ErrorInfo, ModelMessage } from "../../messages/omni-message.js";
import { traceFileName } from "../../trace/trace-files.js";
import type { TraceHeader } from "../../trace/trace-header.js";
import { TraceWriter } from "../../trace/trace-writer.js";
import type { LoopContext } from "../loop-types.js";
import { requestSummary } from "./summary-request.js";

export type CompactionResult = { status: "ok" } | { status: "failed"; error: ErrorInfo } | { status: "aborted" };

/**
 * One compaction (spec: "Compaction"). summarize: the model writes a summary of the context,
 * which continues as one `[context_summary]` user text in a fresh context; discard: the old
 * context is dropped (mid-Task, the fresh one begins with the Task's prompt). Either way the Trace rotates, so one file is one model context. A failed
 * compaction keeps the old context and Trace file; an automatic trigger tries again at the next
 * turn if it still holds.
 */
export async function runCompaction(ctx: LoopContext, reason: CompactionReason): Promise<CompactionResult> {
	const { session } = ctx;
	const { mode } = session.config.compaction;
	// What an interrupted Task left for the next run (finished outputs, placeholders) is part of
	// the context being compacted: summarized with it, or dropped with it.
	session.context.push(...session.carryOver);
	session.carryOver = [];
	ctx.out.emit(makeMessage("compaction_begin", { reason, mode }));
	ctx.compactionOpen = true;
	let fresh: ModelMessage[] = [];
	if (mode === "summarize") {
		const result = await requestSummary(ctx);
		// After the await: an abort meanwhile means the Task's end is recorded; the context stays as it was.
		if (result.status === "aborted" || ctx.interrupt.signal.aborted) return { status: "aborted" };
		if (result.status === "failed") {
			endCompaction(ctx, { status: "failed", error: result.error });
			// The next trigger retries, and no sooner than the next turn: failing fast beats stalling.
			if (reason !== "manual") session.compaction.blockedUntilTurn = session.turnCount + 1;
			return result;
		}
		fresh = [userText(writeMarker("context_summary", result.summary))];
	} else if (ctx.turn !== undefined) {
		// Discarded mid-Task (a trigger between turns, the provider's overflow): the Task's prompt
		// went with the old context, and the model still has to do what it asks. It begins the fresh
		// context, restated (new ids and seqs): the next request is never empty.
		fresh = whatTheTaskAsks(ctx.prompt, session.context).map(restated);
	}
	endCompaction(ctx, { status: "ok" });
	rotateTrace(ctx, fresh, reason !== "manual");
	Object.assign(session.compaction, { turnsSince: 0, blockedUntilTurn: 0, justCompacted: true });
	session.lastRequestTotal = 0;
	return { status: "ok" };
}

function endCompaction(ctx: LoopContext, end: { status: "ok" } | { status: "failed"; error: ErrorInfo }): void {
	ctx.compactionOpen = false;
	ctx.out.emit(makeMessage("compaction_end", end));
}

/**
 * The compaction_end a compaction cut off by the Task's end still owes (after its request's
 * request_end, before `abort`): failed, so every compaction_begin has its end and a resume
 * never reads the turns after it as the compaction's.
 */
export function closeOpenCompaction(ctx: LoopContext, error: ErrorInfo | undefined): void {
	if (!ctx.compactionOpen) return;
	ctx.compactionOpen = false;
	ctx.out.final(
		makeMessage("compaction_end", {
			status: "failed",
			error: error ?? { kind: "aborted", message: "the compaction was aborted" },
		}),
	);
}

/**
 * A person's request: a user text that is not, as a whole, one marker block. A block is the
 * engine's or a host's note (`[turn_aborted]`, `[loop_warning]`, a restart's `[task_restarted]`,
 * …) — or steering (`[user_steering]`), which adds to a request rather than making one.
 */
function isRequest(message: ModelMessage): boolean {
	return message.type === "user_text" && wholeMarker(message.text) === undefined;
}

/**
 * What the Task was asked: its prompt — or, for a Task continued after a crash or a restart,
 * whose prompt is at most a note, the last request a person made in the context being dropped,
 * then that note.
 */
function whatTheTaskAsks(prompt: readonly ModelMessage[], old: readonly ModelMessage[]): ModelMessage[] {
	if (prompt.some(isRequest)) return [...prompt];
	const asked = old.findLast(isRequest);
	return asked === undefined ? [...prompt] : [asked, ...prompt];
}

/** A copy of a message to be emitted again, as a new message (the original keeps its id and seq). */
function restated<T extends ModelMessage>(message: T): T {
	return Object.assign({}, message, { id: newMessageId(), ts: Date.now(), seq: 0 });
}

/** The next Trace file begins with the fresh context, under a header of its own. */
function rotateTrace(ctx: LoopContext, fresh: readonly ModelMessage[], midTask: boolean): void {
	const { session } = ctx;
	const file = session.traceHeader.file + 1;
	const { openTask: _open, taskBefore: _before, ...template } = session.traceHeader;
	const header: TraceHeader = {
		...template,
		file,
		createdAt: new Date().toISOString(),
		sessionCreatedAt: session.traceHeader.sessionCreatedAt ?? session.traceHeader.createdAt,
		turnsBefore: session.turnCount,
		// What a resume from this file alone cannot count: it may hold no token_usage, or no message at all.
		usageBefore: { ...session.usage },
		// Every seq up to here may be in the files before this one: handed out unreserved too, when
		// a reservation failed (readers skip the earlier files by this number).
		seqReserved: Math.max(session.seqReserved, session.seq),
		...(midTask ? { openTask: true, taskBefore: { turns: ctx.turnsThisTask, usage: { ...ctx.taskUsage } } } : {}),
	};
	session.trace.close();
	session.trace = TraceWriter.create(join(session.traceDir, traceFileName(file)), header, {
		durable: session.config.trace.durable,
		enabled: session.config.trace.enabled,
		withFirstLines: true,
	});
	session.traceHeader = header;
	session.context = [];
	for (const message of fresh) {
		session.context.push(message);
		ctx.out.emit(message);
	}
	session.trace.flush();
}
