import type { CliContext, GlobalOptions } from "../cli-options.js";
import { type Conversation, startConversation } from "../session/conversation.js";
import { EXIT } from "../exit-codes.js";
import type { LineRoute } from "../terminal/line-input.js";
import { runSlashCommand } from "./slash-commands.js";
import { runTask } from "../session/task-runner.js";

const PROMPT = "you> ";
const INTERRUPTED = "interrupted — the next message continues from here; Ctrl-C again to exit";

/**
 * `omniloop chat`: a conversation. A line typed while a Task runs steers it; at the prompt a line
 * is the next Task or a /command. Ctrl-C stops a running Task and keeps the conversation; at the
 * prompt it exits. End of input exits once the running Task has ended.
 */
export async function chatCommand(options: GlobalOptions, ctx: CliContext): Promise<number> {
	const conversation = await startConversation(options, ctx, "chat");
	greet(conversation, ctx);
	for (;;) {
		const line = await conversation.input.next(ctx.screen.err.style.bold(PROMPT));
		if (line === undefined) break;
		const text = line.trim();
		if (text === "") continue;
		if (text.startsWith("/")) {
			if ((await runSlashCommand(text, conversation, ctx.screen)) === "exit") break;
			continue;
		}
		conversation.input.setRoute(steeringRoute(conversation, ctx));
		try {
			await runTask(conversation, text, INTERRUPTED);
		} finally {
			conversation.input.setRoute(undefined);
		}
	}
	await conversation.opened.session.close();
	return EXIT.ok;
}

/**
 * While a Task runs: a line steers it; an empty line ends a reconnect wait early; a /command and
 * a line the Task can no longer take (it is ending) wait for the prompt.
 */
function steeringRoute(conversation: Conversation, ctx: CliContext): LineRoute {
	const { session } = conversation.opened;
	const dim = ctx.screen.err.style.dim;
	return (line) => {
		const text = line.trim();
		if (text === "") {
			session.skipReconnectWait();
			return true;
		}
		if (text.startsWith("/")) {
			ctx.screen.notice(dim(`(${text.split(/\s/)[0]} runs when this Task ends)`));
			return false;
		}
		if (session.steer(text)) {
			ctx.screen.notice(dim("↳ steering: the model sees this at its next turn"));
			return true;
		}
		ctx.screen.notice(dim("(the Task is ending: this becomes your next message)"));
		return false;
	};
}

function greet(conversation: Conversation, ctx: CliContext): void {
	const { opened } = conversation;
	const style = ctx.screen.err.style;
	const how = opened.resumed ? "resumed" : "new";
	ctx.screen.notice(
		style.dim(
			`omniloop chat · agent ${conversation.options.agent} · model ${opened.modelId} · session ${opened.session.id} (${how})`,
		),
	);
	ctx.screen.notice(
		style.dim("Type a message; a line typed while a Task runs steers it. /help lists commands; Ctrl-C stops a Task."),
	);
}
