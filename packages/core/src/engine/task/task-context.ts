import { LoopDetector } from "../../context/loop-detection.js";
import { addUsage, emptyUsage } from "../../messages/constructors.js";
import { errorMessage } from "../../messages/error-message.js";
import {
	isPartialMessage,
	type ModelMessage,
	type OmniMessage,
	type PartialMessage,
} from "../../messages/omni-message.js";
import { PartialRedaction, redactor } from "../../messages/redaction.js";
import { ModelError } from "../../model/failure.js";
import type { ThinkingLevel } from "../../model/model-adapter.js";
import type { ApproveFn } from "../../tools/tool.js";
import type { LoopContext, SessionState } from "../loop-types.js";
import { Interruptible } from "./interruptible.js";
import type { OutputChannel } from "./output-channel.js";
import type { ReconnectWait } from "./reconnect-wait.js";
import { nextSeq } from "./seq.js";
import type { SteeringQueue } from "./steering.js";

/** The Task running on a Session: what `steer`, `skipReconnectWait` and a second `run` need to see. */
export interface ActiveTask {
	readonly steering: SteeringQueue;
	readonly reconnectWait: ReconnectWait;
}

export interface TaskOptions {
	approve?: ApproveFn | undefined;
	thinkingLevel?: ThinkingLevel | undefined;
	askAhead?: boolean | undefined;
}

/**
 * The shared context of one Task's loop. Every message goes through `emit`: it gets the next seq,
 * its credential values are redacted, and it is written to the Trace (partials excepted) and
 * pushed to the run's output, in that order: the one place messages leave the engine. Once
 * the Task's signal fires, `emit` is closed; only `emitFinal` (abort, done) still goes out.
 */
export function createTaskContext(
	state: SessionState,
	task: ActiveTask,
	prompt: readonly ModelMessage[],
	options: TaskOptions,
	controller: AbortController,
	channel: OutputChannel<OmniMessage>,
	release: () => void,
): LoopContext {
	let open = true;
	/** Where each message sits in the output, by seq, for the few that must be waited on. */
	const positions = new Map<number, number>();
	const secrets = state.secrets();
	const redact = redactor(secrets);
	const fragments = new PartialRedaction(secrets);
	const sendPartial = (fragment: PartialMessage) => {
		fragment.seq = nextSeq(state);
		channel.push(fragment);
	};
	const send = (message: OmniMessage) => {
		// A fragment's tail held back in case it began a key goes out just before its message.
		const held = fragments.release(message.id);
		if (held !== undefined) sendPartial(held);
		message.seq = nextSeq(state);
		const out = redact(message);
		if (!isPartialMessage(out)) state.trace.write(out);
		const position = channel.push(out);
		if (message.type === "tool_call") positions.set(message.seq, position);
	};
	controller.signal.addEventListener(
		"abort",
		() => {
			open = false;
			task.steering.stopAccepting();
			// The Task ends from here, not when its loop next wakes: the loop may be waiting on a
			// model that is slow to notice. A microtask later, so the code that aborted finishes first.
			queueMicrotask(() => {
				if (!ctx.finished) ctx.onInterrupted?.().catch((error: unknown) => ctx.fail(error));
			});
		},
		{ once: true },
	);
	let markEnded!: () => void;
	const ended = new Promise<void>((resolve) => {
		markEnded = resolve;
	});
	const { loopDetection } = state.config;
	const ctx: LoopContext = {
		session: state,
		approve: options.approve,
		taskHooks: {
			// A subagent's messages join this stream (and its seq) but not this Trace: they are in its own.
			forward: (message) => {
				if (!open) return;
				message.seq = nextSeq(state);
				const position = channel.push(redact(message));
				if (message.type === "tool_call") positions.set(message.seq, position);
			},
			delivered: (message) => ctx.delivered(message),
			approve: options.approve,
			addUsage: (usage) => {
				addUsage(state.usage, usage);
				addUsage(ctx.taskUsage, usage);
			},
			depth: state.depth,
			sessionId: state.sessionId,
			agentId: state.agentId,
		},
		thinkingLevel: options.thinkingLevel,
		askAhead: options.askAhead ?? false,
		interrupt: new Interruptible(controller.signal),
		steering: task.steering,
		reconnectWait: task.reconnectWait,
		prompt,
		turn: undefined,
		openRequest: undefined,
		loopDetector: loopDetection.enabled ? new LoopDetector(loopDetection.repeats) : undefined,
		overflow: undefined,
		overflowRetried: false,
		turnsThisTask: 0,
		taskUsage: emptyUsage(),
		failure: undefined,
		emit: (message) => {
			if (open) send(message);
		},
		emitPartial: (message) => {
			if (!open) return;
			const passed = fragments.pass(message);
			if (passed !== undefined) sendPartial(passed);
		},
		emitFinal: send,
		delivered: (message) => {
			const position = positions.get(message.seq);
			positions.delete(message.seq);
			if (position === undefined) return Promise.resolve();
			// One macrotask more, so the host's own handling of the message (render it) runs first.
			return channel.untilTaken(position).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
		},
		fail: (error) => {
			if (controller.signal.aborted) return;
			ctx.failure =
				error instanceof ModelError
					? { kind: error.failure.class, message: error.failure.message }
					: { kind: "internal", message: errorMessage(error) };
			controller.abort(error);
		},
		close: () => {
			open = false;
			if (!controller.signal.aborted) controller.abort(new Error("the Task ended"));
			ctx.openRequest?.read.close();
		},
		release,
		finished: false,
		end: () => {
			channel.close();
			markEnded();
		},
		ended,
		onInterrupted: undefined,
	};
	return ctx;
}
