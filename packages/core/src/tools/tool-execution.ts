import { errorMessage } from "../messages/error-message.js";
import type { ToolCall, ToolCallStatus } from "../messages/omni-message.js";
import { Deadlines } from "./deadlines.js";
import type { CommandSandbox } from "./sandbox/command-sandbox.js";
import type { TaskHooks, Tool, ToolContext } from "./tool.js";
import type { ToolRegistry } from "./tool-registry.js";

/** The placeholder for a call that was running, or waiting, when the Task was aborted. */
export const INTERRUPTED_OUTPUT = "[interrupted: tool aborted by user]";

/** A call after `prepare`: ready to run, or refused with the reason the model will read. */
export type PreparedCall = { kind: "ready"; tool: Tool; args: unknown } | { kind: "refused"; output: string };

/** Finds the tool and checks the arguments. Never throws: problems become text for the model. */
export function prepareToolCall(call: ToolCall, registry: ToolRegistry): PreparedCall {
	const found = registry.get(call.name);
	if (found === undefined) {
		const names = registry.names;
		return {
			kind: "refused",
			output: `Unknown tool "${call.name}". Available tools: ${names.length ? names.join(", ") : "none"}.`,
		};
	}
	let raw: unknown;
	try {
		raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
	} catch (error) {
		return {
			kind: "refused",
			output: `Invalid arguments for ${call.name}: not valid JSON (${(error as Error).message}). Arguments received: ${call.arguments}`,
		};
	}
	const checked = found.checkArguments(raw);
	if (!checked.ok) return { kind: "refused", output: `Invalid arguments for ${call.name}: ${checked.problems}` };
	return { kind: "ready", tool: found, args: checked.value };
}

/** The Task's cancellation as a tool call needs it: cheaper to watch than an AbortSignal listener per call. */
export interface AbortWatch {
	readonly signal: AbortSignal;
	/** Calls `listener` once when the Task is aborted; returns a function that stops watching. */
	onAbort(listener: () => void): () => void;
}

/** An AbortWatch over a plain signal, for hosts that run a tool call themselves. */
export function abortWatch(signal: AbortSignal): AbortWatch {
	return {
		signal,
		onAbort(listener) {
			signal.addEventListener("abort", listener, { once: true });
			return () => signal.removeEventListener("abort", listener);
		},
	};
}

export interface ExecutionSettings {
	workspaceDir: string;
	sessionDir: string;
	sandbox: CommandSandbox;
	/** Paths the file tools refuse (ToolContext.deniedPaths). */
	deniedPaths?: readonly string[];
	/** Paths the file tools never write (ToolContext.readOnlyPaths). */
	readOnlyPaths?: readonly string[];
	task: TaskHooks;
	/** The tool's time limit; past it the call ends with an error output. */
	timeoutMs: number;
	/** Shared by the calls of a Session (one timer for all); a fresh one when omitted. */
	deadlines?: Deadlines;
	/** The Task's cancellation: when it fires the call ends at once as interrupted. */
	abort: AbortWatch;
	progress(text: string): void;
}

export interface ExecutionResult {
	output: string;
	status: ToolCallStatus;
	/** The tool called `ctx.endTask()` before it settled: the Task ends once the turn's calls are done. */
	endsTask?: boolean;
}

/**
 * Runs a prepared call. Never rejects, and settles promptly when the Task is aborted or the time
 * limit passes, even if the tool ignores its signal (its promise is still observed). The tool's
 * signal is made only if the tool reads it, and fires only when the tool must stop.
 */
export function executeToolCall(
	call: ToolCall,
	prepared: Extract<PreparedCall, { kind: "ready" }>,
	settings: ExecutionSettings,
): Promise<ExecutionResult> {
	return new ToolRun(call, settings).run(prepared);
}

const INTERRUPTED_RESULT: ExecutionResult = { output: INTERRUPTED_OUTPUT, status: "interrupted" };

/**
 * One call from its start to its result: the first of the tool's answer, its time limit and the
 * Task's abort settles it. One object per call, not a closure for each of those (every call of
 * every turn passes here).
 */
class ToolRun {
	private controller: AbortController | undefined;
	private stopped = false;
	private settled = false;
	private endRequested = false;
	private resolve: ((result: ExecutionResult) => void) | undefined;
	private cancelDeadline: (() => void) | undefined;
	private stopWatching: (() => void) | undefined;

	constructor(
		private readonly call: ToolCall,
		private readonly settings: ExecutionSettings,
	) {}

	run(prepared: Extract<PreparedCall, { kind: "ready" }>): Promise<ExecutionResult> {
		const { settings } = this;
		const result = new Promise<ExecutionResult>((resolve) => {
			this.resolve = resolve;
		});
		if (settings.abort.signal.aborted) {
			this.stop(INTERRUPTED_RESULT);
			return result;
		}
		this.cancelDeadline = (settings.deadlines ?? new Deadlines()).add(performance.now() + settings.timeoutMs, () =>
			this.stop({ output: `Error: ${this.call.name} timed out after ${settings.timeoutMs} ms.`, status: "error" }),
		);
		this.stopWatching = settings.abort.onAbort(() => this.stop(INTERRUPTED_RESULT));
		let running: Promise<unknown>;
		try {
			running = prepared.tool.execute(prepared.args, this.context());
		} catch (error) {
			running = Promise.reject(error);
		}
		Promise.resolve(running).then(
			(value) => this.finish(finalize(value)),
			(error: unknown) => this.finish({ output: `Error: ${errorMessage(error)}`, status: "error" }),
		);
		return result;
	}

	/** What the tool gets: a plain object (tools may copy it), its signal made only when read. */
	private context(): ToolContext {
		const { settings } = this;
		const run = this;
		return {
			get signal() {
				return run.signal();
			},
			callId: this.call.callId,
			workspaceDir: settings.workspaceDir,
			sessionDir: settings.sessionDir,
			sandbox: settings.sandbox,
			deniedPaths: settings.deniedPaths,
			readOnlyPaths: settings.readOnlyPaths,
			task: settings.task,
			progress: (text) => {
				if (!this.settled) settings.progress(text);
			},
			endTask: () => {
				if (!this.settled) this.endRequested = true;
			},
		};
	}

	private signal(): AbortSignal {
		if (this.controller === undefined) {
			this.controller = new AbortController();
			if (this.stopped) this.controller.abort();
		}
		return this.controller.signal;
	}

	private stop(result: ExecutionResult): void {
		this.stopped = true;
		this.controller?.abort();
		this.finish(result);
	}

	private finish(result: ExecutionResult): void {
		if (this.settled) return;
		this.settled = true;
		this.cancelDeadline?.();
		this.stopWatching?.();
		this.resolve?.(this.endRequested ? { ...result, endsTask: true } : result);
	}
}

/** A tool's result as the model reads it; one JSON cannot hold (a cycle, a BigInt) is the call's error, not the host's crash. */
function finalize(value: unknown): ExecutionResult {
	if (typeof value === "string") return { output: value, status: "ok" };
	if (value === undefined || value === null) return { output: "", status: "ok" };
	try {
		return { output: JSON.stringify(value) ?? "", status: "ok" };
	} catch (error) {
		return {
			output: `Error: the tool's result could not be written as JSON (${errorMessage(error)})`,
			status: "error",
		};
	}
}
