import type { ToolCall } from "../messages/omni-message.js";
import { Deadlines } from "./deadlines.js";
import type { CommandSandbox } from "./sandbox/command-sandbox.js";
import type { TaskHooks, Tool } from "./tool.js";
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
 * its own folder, its toolset, their time limit, the sandbox its commands run in, and the paths
 * no file tool may touch.
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
		/** How commands run (docs/sandbox.md); a call of a sandboxed tool it cannot confine needs a person. */
		readonly sandbox: CommandSandbox,
		/** Real paths the built-in file tools never read, list or write (see ToolContext.deniedPaths). */
		readonly deniedPaths: readonly string[] = [],
		/** Paths the built-in file tools never write (see ToolContext.readOnlyPaths). */
		readonly readOnlyPaths: readonly string[] = [],
	) {}

	/**
	 * Why a call of `tool` would run without the sandbox it is configured for (a person must then
	 * approve it, whatever the policy); undefined when it runs as configured.
	 */
	unsandboxed(tool: Tool): string | undefined {
		return tool.sandboxed === true ? this.sandbox.unsandboxed : undefined;
	}

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
			sandbox: this.sandbox,
			deniedPaths: this.deniedPaths,
			readOnlyPaths: this.readOnlyPaths,
			timeoutMs: this.toolTimeoutMs,
			deadlines: this.deadlines,
			abort: run.abort,
			task: run.task,
			progress: run.progress,
		});
	}
}
