import type { CliContext, GlobalOptions } from "../cli-options.js";
import { startConversation } from "../session/conversation.js";
import { UsageError } from "../errors.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { runTask } from "../session/task-runner.js";

const INTERRUPTED = "interrupted — stopping the Task; Ctrl-C again to exit at once";

/**
 * `omniloop run "task"`: one Task in the current folder. Its exit code follows how it ended.
 * Lines on stdin answer its approvals (typed ahead or when asked); an empty line ends a reconnect
 * wait early.
 */
export async function runCommand(task: string, options: GlobalOptions, ctx: CliContext): Promise<number> {
	if (task.trim() === "")
		throw new UsageError('run: the task is empty; say what to do, e.g. omniloop run "what is here?"');
	const conversation = await startConversation(options, ctx, "run");
	const { session } = conversation.opened;
	conversation.input.setRoute((line) => {
		if (line.trim() !== "") return false;
		session.skipReconnectWait();
		return true;
	});
	const done = await runTask(conversation, task, INTERRUPTED);
	await session.close();
	return done === undefined ? EXIT.error : exitCodeFor(done.reason);
}
