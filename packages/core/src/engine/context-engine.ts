import { emptyUsage } from "../messages/constructors.js";
import { isModelMessage, isPartialMessage, type ModelMessage, type OmniMessage } from "../messages/omni-message.js";
import type { ThinkingLevel } from "../model/model-adapter.js";
import { RunInputError, SessionBusyError } from "./errors.js";
import { Interruptible } from "./interruptible.js";
import { runLoop } from "./loop.js";
import type { LoopContext, SessionState } from "./loop-types.js";
import { OutputChannel } from "./output-channel.js";
import { ReconnectWait } from "./reconnect.js";
import { SteeringQueue } from "./steering.js";
import type { ApproveFn } from "./tool-batch.js";

export interface RunOptions {
	/** Interrupts the Task (Ctrl-C): `abort`, then `done{user_abort}`; the next run gets the carry-over. */
	signal?: AbortSignal;
	/** Asked about each call the approval policy says to ask about. Omitted: those calls are denied. */
	approve?: ApproveFn;
	/** This run's thinking level, carried through reconnects. */
	thinkingLevel?: ThinkingLevel;
}

/** The Task running on a Session: what `steer`, `skipReconnectWait` and a second `run` need to see. */
interface ActiveTask {
	readonly steering: SteeringQueue;
	readonly reconnectWait: ReconnectWait;
}

/**
 * A Session: one model context, one Trace, one Task at a time.
 *
 * `run` drives one Task to its end and streams every OmniMessage; `steer` queues user input for
 * the running Task.
 */
export class Session {
	private task: ActiveTask | undefined;

	constructor(private readonly state: SessionState) {}

	get id(): string {
		return this.state.sessionId;
	}

	get workspaceDir(): string {
		return this.state.workspaceDir;
	}

	/** True while a Task runs. */
	get busy(): boolean {
		return this.task !== undefined;
	}

	/** A copy of the model context as the next request would start from it. */
	get context(): readonly ModelMessage[] {
		return [...this.state.context];
	}

	/**
	 * Runs one Task: `input` (the prompt) goes to the model after any carry-over, and the returned
	 * generator streams every message until exactly one `done`.
	 *
	 * Throws SessionBusyError at once if a Task is already running (that Task is unharmed), and
	 * RunInputError if `input` is not a list of model messages.
	 */
	run(input: readonly ModelMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
		if (this.task !== undefined) throw new SessionBusyError(this.id);
		const prompt = checkInput(input, this.state.carryOver.length > 0);
		const task: ActiveTask = { steering: new SteeringQueue(), reconnectWait: new ReconnectWait() };
		this.task = task;
		const release = () => {
			if (this.task === task) this.task = undefined;
		};
		return startOnFirstRead(this.drive(task, prompt, options), release);
	}

	/**
	 * Queues `text` for the running Task; it reaches the model as `[user_steering]` at the next
	 * input assembly. Returns false when no Task is running (submit a new Task instead).
	 */
	steer(text: string): boolean {
		if (typeof text !== "string" || text.trim() === "")
			throw new RunInputError("steer(text): text must be a non-empty string");
		return this.task?.steering.offer(text) ?? false;
	}

	/**
	 * Ends the current reconnect wait now (the Web App's "retry now"); the attempt counter is
	 * unchanged. Does nothing when no wait is running.
	 */
	skipReconnectWait(): void {
		this.task?.reconnectWait.skip();
	}

	/** Closes the Session's Trace file. The Session can no longer run. */
	close(): void {
		this.state.trace.close();
	}

	private async *drive(
		task: ActiveTask,
		prompt: ModelMessage[],
		options: RunOptions,
	): AsyncGenerator<OmniMessage, void, undefined> {
		const controller = new AbortController();
		const onHostAbort = () => controller.abort(options.signal?.reason);
		if (options.signal?.aborted) onHostAbort();
		else options.signal?.addEventListener("abort", onHostAbort, { once: true });

		const channel = new OutputChannel<OmniMessage>();
		const ctx = this.loopContext(task, prompt, options, controller, channel);
		task.steering.start();
		const loop = runLoop(ctx).finally(() => channel.close());
		try {
			yield* channel.drain();
			await loop;
		} finally {
			// Reached early only when the consumer stopped reading: that ends the Task like an abort.
			if (!controller.signal.aborted) controller.abort(new Error("the run's consumer stopped reading"));
			options.signal?.removeEventListener("abort", onHostAbort);
			await loop.catch(() => {});
			if (this.task === task) this.task = undefined;
		}
	}

	private loopContext(
		task: ActiveTask,
		prompt: ModelMessage[],
		options: RunOptions,
		controller: AbortController,
		channel: OutputChannel<OmniMessage>,
	): LoopContext {
		const { state } = this;
		let open = true;
		const send = (message: OmniMessage) => {
			message.seq = ++state.seq;
			if (!isPartialMessage(message)) state.trace.write(message);
			channel.push(message);
		};
		const interrupt = new Interruptible(controller.signal);
		controller.signal.addEventListener(
			"abort",
			() => {
				open = false;
				task.steering.stopAccepting();
			},
			{ once: true },
		);
		const ctx: LoopContext = {
			session: state,
			approve: options.approve,
			thinkingLevel: options.thinkingLevel,
			interrupt,
			steering: task.steering,
			reconnectWait: task.reconnectWait,
			prompt,
			turn: undefined,
			turnsThisTask: 0,
			taskUsage: emptyUsage(),
			failure: undefined,
			emit: (message) => {
				if (open) send(message);
			},
			emitFinal: send,
			fail: (error) => {
				if (controller.signal.aborted) return;
				ctx.failure = { kind: "internal", message: error instanceof Error ? error.message : String(error) };
				controller.abort(error);
			},
			close: () => {
				open = false;
				if (!controller.signal.aborted) controller.abort(new Error("the Task ended"));
				const stream = ctx.turn?.stream;
				if (stream?.return) stream.return().catch(() => {});
			},
			release: () => {
				if (this.task === task) this.task = undefined;
			},
		};
		return ctx;
	}
}

/** Copies the prompt (seq 0, the caller's objects untouched) after checking it. */
function checkInput(input: readonly ModelMessage[], hasCarryOver: boolean): ModelMessage[] {
	if (!Array.isArray(input)) throw new RunInputError("run(input): input must be an array of model messages");
	const prompt = input.map((message, index) => {
		if (typeof message !== "object" || message === null || !isModelMessage(message as OmniMessage)) {
			const type = (message as { type?: unknown } | null)?.type;
			throw new RunInputError(
				`run(input): input[${index}] has type ${JSON.stringify(type)}; expected a model message (user_text, assistant_text, reasoning, tool_call, tool_call_output), e.g. userText("…")`,
			);
		}
		return { ...message, seq: 0 };
	});
	if (prompt.length === 0 && !hasCarryOver) {
		throw new RunInputError("run(input): input is empty and there is no carry-over to continue from");
	}
	return prompt;
}

/**
 * The run's generator, with one addition: if it is closed before it was ever read, the Session
 * is released all the same (an unread async generator never runs its `finally`).
 */
function startOnFirstRead<T>(
	inner: AsyncGenerator<T, void, undefined>,
	release: () => void,
): AsyncGenerator<T, void, undefined> {
	let started = false;
	const outer: AsyncGenerator<T, void, undefined> = {
		next: (...args) => {
			started = true;
			return inner.next(...args);
		},
		return: async (value) => {
			const result = await inner.return(value);
			if (!started) release();
			return result;
		},
		throw: async (error) => {
			const result = await inner.throw(error);
			if (!started) release();
			return result;
		},
		[Symbol.asyncIterator]: () => outer,
	};
	return outer;
}
