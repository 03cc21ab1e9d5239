import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { type CliContext, type GlobalOptions, parseThinking, THINKING_LEVELS } from "./cli-options.js";
import { chatCommand } from "./commands/chat-command.js";
import { replayCommand } from "./commands/replay-command.js";
import { runCommand } from "./commands/run-command.js";
import { addServeCommand } from "./commands/serve-command.js";
import { addSessionsCommand } from "./commands/sessions-program.js";
import { addWorkflowsCommand } from "./commands/workflows-command.js";
import { describeFailure } from "./errors.js";
import { EXIT } from "./exit-codes.js";
import { firstMessage } from "./first-message.js";
import type { Shutdown } from "./shutdown.js";
import type { InputStreams } from "./terminal/line-input.js";
import { Screen } from "./terminal/screen.js";

/** The process the CLI runs in: its streams, environment and folder (tests may pass their own). */
export interface CliProcess {
	argv: readonly string[];
	stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
	streams: InputStreams;
	env: NodeJS.ProcessEnv;
	cwd: string;
	shutdown: Shutdown;
}

type Action = (ctx: CliContext, options: GlobalOptions) => Promise<number> | number;

/** Parses the command line, runs the command and resolves with the exit code. */
export async function runCli(proc: CliProcess): Promise<number> {
	let exitCode: number = EXIT.ok;
	const act = (action: Action) => async (command: Command) => {
		const options = command.optsWithGlobals<GlobalOptions>();
		const ctx: CliContext = {
			screen: new Screen(proc.stdout, proc.streams.stderr, proc.env, options.json),
			stdout: proc.stdout,
			streams: proc.streams,
			env: proc.env,
			cwd: proc.cwd,
			shutdown: proc.shutdown,
		};
		try {
			const given = (key: string) => command.getOptionValueSourceWithGlobals(key) === "cli";
			exitCode = await action(ctx, {
				...options,
				configDir: resolve(proc.cwd, options.configDir),
				given: { agent: given("agent"), configDir: given("configDir") },
			});
		} catch (error) {
			const failure = describeFailure(error);
			ctx.screen.error(`omniloop: ${failure.message}`);
			exitCode = failure.code;
		}
	};
	const program = buildProgram(proc.cwd, act);
	try {
		await program.parseAsync(pickerArgv(proc.argv, program));
	} catch (error) {
		// commander has already printed its message; help and --version end with 0.
		if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
		throw error;
	}
	return exitCode;
}

function buildProgram(cwd: string, act: (action: Action) => (command: Command) => Promise<void>): Command {
	const program = new Command("omniloop")
		.description("omniloop, an agent runtime: chat with an agent, or run one Task, in the current folder.")
		.version(packageVersion())
		.option("--agent <id>", "the agent of omniloop.yaml to run", "default_agent")
		.option(
			"--model <name>",
			"a model of omniloop.yaml by name, or provider:model (openai:gpt-5-mini, anthropic:<model>, google:<model>, openai-chat:<model>)",
		)
		.option("-y, --yes", "allow every tool call without asking", false)
		.option("--json", "print one OmniMessage a line on stdout (prompts and notices go to stderr)", false)
		.option(
			"--resume [id]",
			"continue a Session (its id, or the start of it); without an id, pick one from a numbered list",
		)
		.option("-c, --continue", "continue the newest Session of this folder", false)
		.option("--thinking <level>", `reasoning effort: ${THINKING_LEVELS.join(", ")}`, parseThinking)
		.option("--config-dir <dir>", "the folder omniloop.yaml is read from", cwd)
		.option(
			"--local",
			"run in-process even when omniloop serve runs for this home (by default a chat attaches to it, so the web app sees it live)",
			false,
		)
		.configureHelp({ showGlobalOptions: true })
		.exitOverride();

	program
		.command("chat", { isDefault: true })
		.description(
			'a conversation (the default): type a message; a line typed while a Task runs steers it. omniloop "some task" starts one with that message',
		)
		.argument("[message...]", "the first message")
		.action((words: string[], _options: unknown, command: Command) =>
			act((ctx, options) => chatCommand(options, ctx, firstMessage(words, program)))(command),
		);
	program
		.command("run")
		.description(
			'one Task in the current folder, e.g. omniloop run "what does this project do?"; the exit code follows how it ended',
		)
		.argument("<task...>", "what to do")
		.action((task: string[], _options: unknown, command: Command) =>
			act((ctx, options) => runCommand(task.join(" "), options, ctx))(command),
		);
	addSessionsCommand(program, act);
	program
		.command("replay")
		.description("print a Session's Trace as the stream its user saw")
		.argument("<id>", "the Session's id, or the start of it")
		.action((id: string, _options: unknown, command: Command) => act((ctx) => replayCommand(id, ctx))(command));
	addServeCommand(program, act);
	addWorkflowsCommand(program, act);
	for (const command of program.commands) command.exitOverride();
	return program;
}

/**
 * `--resume` right before a command (`omniloop --resume chat`) or an option means the picker:
 * commander would take the command's name as the id, so it becomes `--resume=` (no id).
 */
export function pickerArgv(argv: readonly string[], program: Command): string[] {
	const commands = new Set(["help", ...program.commands.flatMap((command) => [command.name(), ...command.aliases()])]);
	return argv.map((arg, i) => {
		if (arg !== "--resume" || i < 2) return arg;
		const next = argv[i + 1];
		return next === undefined || next.startsWith("-") || commands.has(next) ? "--resume=" : arg;
	});
}

function packageVersion(): string {
	try {
		const manifest: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
		const version = (manifest as { version?: unknown }).version;
		return typeof version === "string" ? version : "0.0.0";
	} catch {
		return "0.0.0";
	}
}
