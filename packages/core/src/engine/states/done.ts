import { makeMessage } from "../../messages/constructors.js";
import type { ErrorInfo } from "../../messages/omni-message.js";
import { closeOpenCompaction } from "../compaction/compaction.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { HostStop } from "../session/errors.js";
import { buildCarryOver } from "../turn/carry-over.js";
import { closeOpenRequest } from "../turn/request.js";

/**
 * done: record the reason and usage. A Task that ends early (abort, error) leaves a carry-over
 * for the next run; steering it could not deliver is recorded and carried over too. After an
 * `abort` only `done` follows. Runs once, through the Task's lifecycle, whoever calls it first.
 */
export function done(ctx: LoopContext, state: Extract<LoopState, { kind: "done" }>): Promise<void> {
	return ctx.lifecycle.finish(() => endTask(ctx, state));
}

/** An abort a host made, not a person (HostStop): `done` says so. */
function hostStopOf(state: Extract<LoopState, { kind: "done" }>, reason: unknown): ErrorInfo | undefined {
	if (state.reason !== "user_abort" || !(reason instanceof HostStop)) return undefined;
	return { kind: "host_stop", message: reason.message };
}

function givenUpBecause(state: Extract<LoopState, { kind: "done" }>): string {
	if (state.reason === "budget_exceeded")
		return "the Session's token budget was reached before this call finished; it was given up";
	return `the Task ended (${state.reason}) before this call finished; it was given up`;
}

function endTask(ctx: LoopContext, state: Extract<LoopState, { kind: "done" }>): void {
	const { session } = ctx;
	// A turn cut short: the files as its tools left them, queued before the Session is free for a restore.
	// A seal that fails only leaves the agent's own changes reported as conflicts (the safe side).
	session.checkpoints?.seal().catch(() => {});
	const turn = ctx.turn;
	closeOpenRequest(ctx);
	closeOpenCompaction(ctx, state.reason === "user_abort" ? undefined : state.error);
	// A Task that ends on its own while calls of its turn are open (the model's stream failed for
	// good, or the model stopped answering) gives each its one decision and one output first
	// (docs/protocol.md §5.1); the Task's end stops those still running. Only an abort leaves them
	// to the carry-over alone — and a failure of the host's own (its guard refused, the Trace could
	// not be written, its copy failed): the host may no longer hold the Session (a process that
	// lost its lease writes nothing more for it), so nothing more is recorded.
	const hostFailed = ctx.interrupt.aborted && ctx.failure !== undefined && ctx.failure.kind === "internal";
	if (state.reason !== "user_abort" && !hostFailed) turn?.batch.abandon(givenUpBecause(state));
	const unsent = turn === undefined ? ctx.prompt : [];
	for (const message of unsent) ctx.out.final(message);
	const carryOver =
		turn === undefined
			? { case: "none" as const, messages: [...session.carryOver, ...unsent] }
			: buildCarryOver(turn, state);
	const undelivered = ctx.steering.close();
	for (const steering of undelivered) ctx.out.final(steering);
	session.carryOver = [...carryOver.messages, ...undelivered];
	if (state.reason === "user_abort") ctx.out.final(makeMessage("abort", { carryOver: carryOver.case }));

	const error = state.error ?? hostStopOf(state, ctx.interrupt.signal.reason);
	const final = makeMessage("done", {
		reason: state.reason,
		usage: { ...ctx.taskUsage },
		sessionUsage: { ...session.usage },
		...(error === undefined ? {} : { error }),
	});
	try {
		session.trace.flush();
	} catch (error) {
		final.reason = "error";
		final.error = { kind: "trace", message: `the Trace could not be written: ${(error as Error).message}` };
	}
	// Free before `done` goes out: a host that starts the next Task on reading it finds the Session idle.
	ctx.lifecycle.release();
	ctx.out.final(final);
	try {
		session.trace.flush();
	} catch {
		// Already reported in `final` if the disk was failing; a done event must still reach the host.
	}
}
