import type { Command } from "commander";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { deleteCommand, exportCommand, renameCommand, searchCommand } from "./session-admin.js";
import { sessionsCommand } from "./sessions-command.js";

type Act = (
	action: (ctx: CliContext, options: GlobalOptions) => Promise<number> | number,
) => (command: Command) => Promise<void>;

/** `omniloop sessions [list]`, `sessions rename <id> <title…>`, `sessions search <words…>`, `sessions delete <id>`, `sessions export <id>`. */
export function addSessionsCommand(program: Command, act: Act): void {
	const sessions = program.command("sessions").description("list Sessions, newest first; rename, delete or export one");
	sessions
		.command("list", { isDefault: true })
		.description("list Sessions, newest first")
		.action((_options: unknown, command: Command) => act((ctx) => sessionsCommand(ctx))(command));
	sessions
		.command("rename")
		.description("give a Session a title (1 to 200 characters)")
		.argument("<id>", "the Session's id, or the start of it")
		.argument("<title...>", "the new title")
		.action((id: string, title: string[], _options: unknown, command: Command) =>
			act((ctx) => renameCommand(id, title.join(" "), ctx))(command),
		);
	sessions
		.command("search")
		.description("find Sessions by their title or the text of their messages")
		.argument("<words...>", "what to look for (case does not matter)")
		.action((words: string[], _options: unknown, command: Command) =>
			act((ctx) => searchCommand(words.join(" "), ctx))(command),
		);
	sessions
		.command("delete")
		.description("delete a Session and its Trace, after asking (--yes: without asking)")
		.argument("<id>", "the Session's id, or the start of it")
		.action((id: string, _options: unknown, command: Command) =>
			act((ctx, options) => deleteCommand(id, options, ctx))(command),
		);
	sessions
		.command("export")
		.description("print a Session as Markdown, or as JSON (its OmniMessages)")
		.argument("<id>", "the Session's id, or the start of it")
		.option("--format <format>", "md or json", "md")
		.action((id: string, options: { format: string }, command: Command) =>
			act((ctx) => exportCommand(id, options.format, ctx))(command),
		);
	for (const command of sessions.commands) command.exitOverride();
}
