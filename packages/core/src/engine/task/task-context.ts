import { LoopDetector } from "../../context/loop-detection.js";
import { addUsage, emptyUsage } from "../../messages/constructors.js";
import { errorMessage } from "../../messages/error-message.js";
import type { ModelMessage, OmniMessage } from "../../messages/omni-message.js";
import { ModelError } from "../../model/failure.js";
import type { ThinkingLevel } from "../../model/model-adapter.js";
import type { ApproveFn } from "../../tools/tool.js";
import type { LoopContext, SessionState } from "../loop-types.js";
import { Emitter } from "./emitter.js";
import { Interruptible } from "./interruptible.js";
import type { OutputChannel } from "./output-channel.js";
import type { ReconnectWait } from "./reconnect-wait.js";
import { registerRedactedForward } from "./redacted-forward.js";
import type { SteeringQueue } from "./steering.js";
import { TaskLifecycle } from "./task-lifecycle.js";

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

/** What a Task's context is made of; `release` frees the Session for the next Task. */
export interface TaskContextParts {
	state: SessionState;
	task: ActiveTask;
	prompt: readonly ModelMessage[];
	options: TaskOptions;
	controller: AbortController;
	channel: OutputChannel<OmniMessage>;
	release: () => void;
}

/**
 * The shared context of one Task's loop. Every message leaves through its Emitter (seq,
 * redaction, Trace, output); its TaskLifecycle is the one way the Task ends. Once the Task's
 * signal fires, emission is closed and the work's `onInterrupted` ends the Task.
 */
export function createTaskContext({
	state,
	task,
	prompt,
	options,
	controller,
	channel,
	release,
}: TaskContextParts): LoopContext {
	const out = new Emitter(state, channel);
	const lifecycle = new TaskLifecycle({
		close: () => {
			out.close();
			if (!controller.signal.aborted) controller.abort(new Error("the Task ended"));
			ctx.openRequest?.read.close();
		},
		release,
		end: () => channel.close(),
	});
	controller.signal.addEventListener(
		"abort",
		() => {
			out.close();
			task.steering.stopAccepting();
			// The Task ends from here, not when its loop next wakes: the loop may be waiting on a
			// model that is slow to notice. A microtask later, so the code that aborted finishes first.
			queueMicrotask(() => {
				if (lifecycle.running) lifecycle.onInterrupted?.().catch((error: unknown) => ctx.fail(error));
			});
		},
		{ once: true },
	);
	const { loopDetection } = state.config;
	const ctx: LoopContext = {
		session: state,
		approve: options.approve,
		taskHooks: {
			forward: (message) => out.forward(message),
			delivered: (message) => out.delivered(message),
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
		compactionOpen: false,
		loopDetector: loopDetection.enabled ? new LoopDetector(loopDetection.repeats) : undefined,
		overflow: undefined,
		overflowRetried: false,
		turnsThisTask: 0,
		taskUsage: emptyUsage(),
		failure: undefined,
		out,
		lifecycle,
		fail: (error) => {
			if (controller.signal.aborted) return;
			ctx.failure =
				error instanceof ModelError
					? { kind: error.failure.class, message: error.failure.message }
					: { kind: "internal", message: errorMessage(error) };
			controller.abort(error);
		},
	};
	registerRedactedForward(ctx.taskHooks, (message, origin) => out.forwardRedacted(message, origin));
	return ctx;
}
