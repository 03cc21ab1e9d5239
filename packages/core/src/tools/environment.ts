import type { ToolCall } from "../messages/omni-message.js";
import { Deadlines } from "./deadlines.js";
import type { TaskHooks } from "./tool.js";
import {
	type AbortWatch,
	type ExecutionResult,
	executeToolCall,
	type PreparedCall,
	prepareToolCall,
} from "./tool-execution.js";
import type { ToolRegistry } from "./tool-registry.js";

/**
 * Where a Session's tools run: its workspace (its real path, fixed when the Session was made),
 * its own folder, its toolset, their time limit, and the paths no file tool may touch.
 * The engine prepares each call here (find the tool, check the arguments), and runs the allowed
 * ones with `executeTool`.
 */
export class Environment {
	private readonly deadlines = new Deadlines();

	constructor(
		readonly tools: ToolRegistry,
		readonly workspaceDir: string,
		/** The Session's folder, where tools keep what does not fit an output. */
		readonly sessionDir: string,
		readonly toolTimeoutMs: number,
		/** Real paths the built-in file tools never read, list or write (see ToolContext.deniedPaths). */
		readonly deniedPaths: readonly string[] = [],
	) {}

	/** Finds the tool and checks the arguments. Never throws: problems are worded for the model. */
	prepare(call: ToolCall): PreparedCall {
		return prepareToolCall(call, this.tools);
	}

	/**
	 * Runs a prepared call. Never rejects; settles at once as interrupted when the Task is aborted, and
	 * as an error when the tool's time is up, whatever the tool does with its own signal.
	 */
	executeTool(
		call: ToolCall,
		prepared: Extract<PreparedCall, { kind: "ready" }>,
		run: { abort: AbortWatch; task: TaskHooks; progress(text: string): void },
	): Promise<ExecutionResult> {
		return executeToolCall(call, prepared, {
			workspaceDir: this.workspaceDir,
			sessionDir: this.sessionDir,
			deniedPaths: this.deniedPaths,
			timeoutMs: this.toolTimeoutMs,
			deadlines: this.deadlines,
			...run,
		});
	}
}
