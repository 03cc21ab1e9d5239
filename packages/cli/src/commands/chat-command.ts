import type { CliContext, GlobalOptions } from "../cli-options.js";
import { type Conversation, startConversation } from "../conversation/conversation.js";
import { showEarlier } from "../conversation/earlier.js";
import { endConversation } from "../conversation/session-end.js";
import { runTask } from "../conversation/task-runner.js";
import { EXIT } from "../exit-codes.js";
import { instructionsSummary } from "../view/file-events.js";
import { runSlashCommand } from "./slash-commands.js";
import { steeringRoute } from "./steering.js";

const PROMPT = "you> ";
const INTERRUPTED = "interrupted — the next message continues from here; Ctrl-C again to exit";

/**
 * `omniloop chat`: a conversation. A message typed while a Task runs steers it; at the prompt a
 * message is the next Task or a /command. Ctrl-C stops a running Task and keeps the
 * conversation; at the prompt it exits. End of input exits once the running Task has ended.
 * `first` (the words of `omniloop "some task"`) is the first message.
 */
export async function chatCommand(options: GlobalOptions, ctx: CliContext, first?: string): Promise<number> {
	const conversation = await startConversation(options, ctx, "chat");
	try {
		if (conversation.opened.resumed) showEarlier(conversation);
		greet(conversation);
		// Ahead of any line piped in while the conversation started: the argument is the first message.
		if (first !== undefined) conversation.input.enqueue(first, { first: true });
		await converse(conversation);
	} finally {
		await endConversation(conversation, ctx);
	}
	return EXIT.ok;
}

async function converse(conversation: Conversation): Promise<void> {
	const { screen } = conversation;
	for (;;) {
		const line = await conversation.input.next(screen.err.style.bold(PROMPT));
		if (line === undefined) return;
		const text = line.trim();
		if (text === "") continue;
		if (text.startsWith("/")) {
			if ((await runSlashCommand(text, conversation, screen)) === "exit") return;
			continue;
		}
		conversation.input.setRoute(steeringRoute(conversation));
		try {
			// Sent as written: a pasted block keeps its lines and indentation.
			await runTask(conversation, line, INTERRUPTED);
		} finally {
			conversation.input.setRoute(undefined);
		}
	}
}

function greet(conversation: Conversation): void {
	const { opened, screen } = conversation;
	const style = screen.err.style;
	const how = opened.resumed ? "resumed" : "new";
	screen.notice(
		style.dim(
			`omniloop chat · agent ${opened.agentId} · model ${opened.modelId} · session ${opened.session.id} (${how})`,
		),
	);
	screen.notice(style.dim(`instructions: ${instructionsSummary(opened.session.instructions)}`));
	screen.notice(
		style.dim("Type a message; a line typed while a Task runs steers it. /help lists commands; Ctrl-C stops a Task."),
	);
}
