import { addUsage, emptyUsage, makeMessage } from "../../messages/constructors.js";
import type { ErrorInfo, OmniMessage, RequestStatus } from "../../messages/omni-message.js";
import { ModelError, type ModelFailure } from "../../model/failure.js";
import type { ModelRequest } from "../../model/model-adapter.js";
import type { LoopContext } from "../loop-types.js";
import { ModelRead } from "./model-read.js";
import type { OpenRequest } from "./open-request.js";

/**
 * The pairing check before a request (turns and compactions alike): the context is repaired in
 * place if it must be, and the repair reported, since any repair means a bug upstream.
 */
export function pairContext(ctx: LoopContext): void {
	const { session } = ctx;
	const paired = session.pairing.run(session.context);
	if (paired.repairs.length === 0) return;
	session.context = paired.messages;
	session.onPairingRepair?.(paired.repairs, session.sessionId);
}

/** A turn's request, from the Session's context as it is now. */
export function turnRequest(ctx: LoopContext): ModelRequest {
	const { session } = ctx;
	const request: ModelRequest = {
		// The context itself, not a copy (a copy per turn of a long Session was ~10% of a turn):
		// it changes only between requests, and adapters do not keep a request (ModelRequest).
		messages: session.context,
		tools: session.environment.tools.specs,
		purpose: "turn",
	};
	if (session.system !== undefined) request.system = session.system;
	if (ctx.thinkingLevel !== undefined) request.thinkingLevel = ctx.thinkingLevel;
	return request;
}

/** Starts one attempt of a request: `request_begin`, then the model call. */
export function startRequest(
	ctx: LoopContext,
	request: ModelRequest,
	begin: { turn: number; attempt: number },
): OpenRequest {
	ctx.session.guard?.(ctx.session.sessionId);
	const requestBegin = makeMessage("request_begin", begin);
	if (request.purpose === "compaction") requestBegin.purpose = "compaction";
	ctx.out.emit(requestBegin);
	ctx.session.trace.flush();
	const { session } = ctx;
	const read = new ModelRead(
		session.model,
		request,
		ctx.interrupt,
		session.config.timeouts,
		session.requestTimer,
		(failure) => {
			attempt.unanswered = failure;
			ctx.fail(new ModelError(failure));
		},
	);
	const attempt: OpenRequest = { read, usage: undefined, open: true };
	ctx.openRequest = attempt;
	return attempt;
}

export interface RetryPlan {
	retry_in_ms: number;
	attempt: number;
}

/** How a request ended, for `endRequest`. */
export interface RequestEnding {
	status: RequestStatus;
	failure?: ModelFailure | undefined;
	/** When the engine will reconnect: the wait and the next attempt. */
	retry?: RetryPlan | undefined;
	/** The request is closed while its Task ends (`done`, a compaction's close): emitted past the close. */
	final?: boolean;
}

/** token_usage then request_end: how every request ends, whatever its status. */
export function endRequest(
	ctx: LoopContext,
	attempt: OpenRequest,
	{ status, failure, retry, final = false }: RequestEnding,
): void {
	// Once the Task is ending, the request stays open: `done` closes it as aborted, before `abort`.
	if (!final && ctx.interrupt.aborted) return;
	const usage = attempt.usage ?? emptyUsage();
	attempt.usage = undefined;
	attempt.open = false;
	if (ctx.openRequest === attempt) ctx.openRequest = undefined;
	addUsage(ctx.session.usage, usage);
	addUsage(ctx.taskUsage, usage);
	// The `context` trigger reads the last turn's total (a compaction's request is no turn).
	if (status === "ok" && ctx.turn?.attempt === attempt) ctx.session.lastRequestTotal = usage.total;
	const tokenUsage = makeMessage("token_usage", {
		request: usage,
		session: { ...ctx.session.usage },
		model: ctx.session.model.id,
	});
	const requestEnd = makeMessage("request_end", { status });
	if (retry !== undefined) Object.assign(requestEnd, retry);
	if (failure !== undefined) requestEnd.error = errorInfo(failure);
	emitEnd(ctx, tokenUsage, final);
	emitEnd(ctx, requestEnd, final);
}

/** A request's end goes out like any message, or past the Task's close when the Task is ending. */
function emitEnd(ctx: LoopContext, message: OmniMessage, final: boolean): void {
	if (final) ctx.out.final(message);
	else ctx.out.emit(message);
}

/**
 * Closes the request still open when its Task ends (its token_usage, request_end): as aborted, or
 * as failed when a time limit passed and the model never answered (nobody aborted anything);
 * false when none was open.
 */
export function closeOpenRequest(ctx: LoopContext): boolean {
	const open = ctx.openRequest;
	if (open === undefined || !open.open) return false;
	const failure = open.unanswered;
	endRequest(
		ctx,
		open,
		failure === undefined ? { status: "aborted", final: true } : { status: "failed", failure, final: true },
	);
	return true;
}

export function errorInfo(failure: ModelFailure): ErrorInfo {
	return {
		kind: failure.class,
		message: failure.message,
		...(failure.status === undefined ? {} : { status: failure.status }),
		...(failure.code === undefined ? {} : { code: failure.code }),
	};
}
