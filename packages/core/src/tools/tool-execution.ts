import { errorMessage } from "../messages/error-message.js";
import type { ToolCall, ToolCallStatus } from "../messages/omni-message.js";
import { Deadlines } from "./deadlines.js";
import type { CommandSandbox } from "./sandbox/command-sandbox.js";
import type { TaskHooks, Tool } from "./tool.js";
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
	let controller: AbortController | undefined;
	let stopped = false;
	return new Promise<ExecutionResult>((resolve) => {
		let settled = false;
		const finish = (result: ExecutionResult) => {
			if (settled) return;
			settled = true;
			cancelDeadline();
			stopWatching();
			resolve(result);
		};
		const stop = (result: ExecutionResult) => {
			stopped = true;
			controller?.abort();
			finish(result);
		};
		const cancelDeadline = (settings.deadlines ?? new Deadlines()).add(performance.now() + settings.timeoutMs, () =>
			stop({ output: `Error: ${call.name} timed out after ${settings.timeoutMs} ms.`, status: "error" }),
		);
		const stopWatching = settings.abort.onAbort(() => stop({ output: INTERRUPTED_OUTPUT, status: "interrupted" }));
		if (settings.abort.signal.aborted) return stop({ output: INTERRUPTED_OUTPUT, status: "interrupted" });
		let running: Promise<unknown>;
		try {
			running = prepared.tool.execute(prepared.args, {
				get signal() {
					if (controller === undefined) {
						controller = new AbortController();
						if (stopped) controller.abort();
					}
					return controller.signal;
				},
				callId: call.callId,
				workspaceDir: settings.workspaceDir,
				sessionDir: settings.sessionDir,
				sandbox: settings.sandbox,
				deniedPaths: settings.deniedPaths,
				task: settings.task,
				progress: (text) => {
					if (!settled) settings.progress(text);
				},
			});
		} catch (error) {
			running = Promise.reject(error);
		}
		Promise.resolve(running).then(
			(value) => finish(finalize(value)),
			(error: unknown) => finish({ output: `Error: ${errorMessage(error)}`, status: "error" }),
		);
	});
}

function finalize(value: unknown): ExecutionResult {
	if (typeof value === "string") return { output: value, status: "ok" };
	if (value === undefined || value === null) return { output: "", status: "ok" };
	return { output: JSON.stringify(value), status: "ok" };
}
