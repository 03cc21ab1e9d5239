import { z } from "zod";
import { tool } from "../tool.js";
import { formatCount, limitOutput } from "./output-limit.js";
import { type CommandRun, KILL_GRACE_MS, runInProcessGroup } from "./process-group.js";

export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
export const MAX_SHELL_TIMEOUT_MS = 600_000;

const parameters = z.object({
	command: z.string().min(1).describe("The command line, run as `bash -c <command>` in the workspace folder."),
	timeout_ms: z
		.number()
		.int()
		.min(1)
		.max(MAX_SHELL_TIMEOUT_MS)
		.optional()
		.describe(
			`Stop the command after this many milliseconds. Default: ${DEFAULT_SHELL_TIMEOUT_MS}; at most ${MAX_SHELL_TIMEOUT_MS}.`,
		),
});

export const shellTool = tool({
	name: "shell",
	description:
		"Runs a command with bash in the workspace folder and returns its output (stdout and stderr together) and its exit code. " +
		"There is no input (stdin is empty) and no terminal. " +
		"Commands usually run in a sandbox: writes only in the workspace and $TMPDIR, no network; the output says when the sandbox refused something. " +
		`The command and everything it started is stopped after timeout_ms (default ${formatCount(DEFAULT_SHELL_TIMEOUT_MS / 1000)} s). ` +
		"A long output keeps its end; the whole of it is saved to a file whose path the output names.",
	parameters,
	sandboxed: true,
	async execute(args, ctx) {
		ctx.signal.throwIfAborted();
		const timeoutMs = args.timeout_ms ?? DEFAULT_SHELL_TIMEOUT_MS;
		const run = await runInProcessGroup({
			command: args.command,
			cwd: ctx.workspaceDir,
			sandbox: ctx.sandbox,
			timeoutMs,
			signal: ctx.signal,
		});
		if (run.ending === "aborted") {
			throw new Error("The command was aborted; it and every process it started were stopped.");
		}
		const refused = ctx.sandbox.refusal(run.output, args.command);
		const shown = await limitOutput(outputText(run), ctx, "end");
		if (run.ending === "timed_out") {
			throw new Error(
				`The command timed out after ${formatCount(timeoutMs)} ms; it and every process it started were stopped ` +
					`(SIGTERM, then SIGKILL after ${formatCount(KILL_GRACE_MS)} ms). Its output until then:\n${shown}`,
			);
		}
		return `${shown}\n${endingLine(run)}${refused === undefined ? "" : `\n${refused}`}`;
	},
});

function outputText(run: CommandRun): string {
	const dropped =
		run.droppedBytes > 0
			? `[the first ${formatCount(run.droppedBytes)} bytes of output were too many to keep and were dropped]\n`
			: "";
	const background = run.leftBackgroundOutput
		? "\n[a background process the command started still holds the output; what it writes from now on is not captured]"
		: "";
	// The command's final newline would show as an empty line before the exit code.
	const output = run.output.endsWith("\n") ? run.output.slice(0, -1) : run.output;
	return output === "" && dropped === "" ? `(no output)${background}` : `${dropped}${output}${background}`;
}

function endingLine(run: CommandRun): string {
	if (run.exitSignal !== null) return `[the command was killed by signal ${run.exitSignal}]`;
	return `[exit code ${run.exitCode ?? "unknown"}]`;
}
