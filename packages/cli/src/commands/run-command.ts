import type { CliContext, GlobalOptions } from "../cli-options.js";
import { startConversation } from "../conversation/conversation.js";
import { endConversation } from "../conversation/session-end.js";
import { runTask } from "../conversation/task-runner.js";
import { UsageError } from "../errors.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { instructionsSummary } from "../view/file-events.js";
import { steeringRoute } from "./steering.js";

const INTERRUPTED = "interrupted — stopping the Task; Ctrl-C again to exit at once";

/**
 * `omniloop run "task"`: one Task in the current folder. Its exit code follows how it ended.
 * From a pipe, lines on stdin answer its approvals (typed ahead or when asked); an empty line
 * ends a reconnect wait early. In the terminal UI a message typed while it runs steers it.
 */
export async function runCommand(task: string, options: GlobalOptions, ctx: CliContext): Promise<number> {
	if (task.trim() === "")
		throw new UsageError('run: the task is empty; say what to do, e.g. omniloop run "what is here?"');
	const conversation = await startConversation(options, ctx, "run");
	const { session } = conversation.opened;
	// What reached the system prompt, as chat's greeting says it; on stderr, so --json's stdout stays messages only.
	if (session.instructions.length > 0) {
		const { screen } = conversation;
		screen.notice(screen.err.style.dim(`instructions: ${instructionsSummary(session.instructions)}`));
	}
	if (!conversation.tui) {
		conversation.input.setRoute((line) => {
			if (line.trim() !== "") return false;
			session.skipReconnectWait();
			return true;
		});
	} else conversation.input.setRoute(steeringRoute(conversation));
	let done: Awaited<ReturnType<typeof runTask>>;
	try {
		done = await runTask(conversation, task, INTERRUPTED);
	} finally {
		await endConversation(conversation, ctx);
	}
	return done === undefined ? EXIT.error : exitCodeFor(done.reason);
}
