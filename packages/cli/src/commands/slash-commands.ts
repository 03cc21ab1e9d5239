import { SessionStore } from "@omniloop/core";
import { errorMessage } from "@omniloop/core/internal";
import type { Conversation } from "../conversation/conversation.js";
import { play } from "../conversation/task-runner.js";
import type { Screen } from "../terminal/screen.js";
import { formatUsage } from "../view/usage-format.js";
import { FILE_HELP, runFileCommand } from "./file-commands.js";
import { runSessionCommand, SESSION_HELP } from "./session-commands.js";

const HELP = [
	"/compact   compact the conversation now (a summary replaces the history)",
	"/title     write a title for this Session and save it",
	"/rename <title>  give this Session a title of your own",
	"/usage     tokens used by this Session so far",
	...SESSION_HELP,
	...FILE_HELP,
	"/exit      leave (so do Ctrl-D and Ctrl-C at the prompt)",
];

/** Runs a chat /command; "exit" ends the chat. */
export async function runSlashCommand(
	text: string,
	conversation: Conversation,
	screen: Screen,
): Promise<"exit" | "continue"> {
	const [name = "", ...args] = text.split(/\s+/);
	switch (name) {
		case "/exit":
		case "/quit":
			return "exit";
		case "/help":
			for (const line of HELP) screen.info.line(line);
			return "continue";
		case "/usage":
			screen.info.line(`Session ${conversation.opened.session.id}: ${formatUsage(conversation.usage)}`);
			return "continue";
		case "/sessions":
		case "/new":
		case "/model":
			await runSessionCommand(name, text.slice(name.length).trim(), conversation, screen);
			return "continue";
		case "/title":
			await title(conversation, screen);
			return "continue";
		case "/rename":
			await rename(conversation, text.slice(name.length), screen);
			return "continue";
		case "/compact":
			await compact(conversation);
			return "continue";
		default:
			if (await runFileCommand(name, args, conversation)) return "continue";
			screen.warn(`unknown command ${name}; /help lists the commands`);
			return "continue";
	}
}

/** Streams a manual compaction's events; Ctrl-C stops it and keeps the conversation as it was. */
async function compact(conversation: Conversation): Promise<void> {
	const controller = conversation.interrupts.begin("compaction interrupted; the conversation is unchanged");
	try {
		await play(conversation, conversation.opened.session.compact({ signal: controller.signal }));
	} finally {
		conversation.interrupts.end(controller);
	}
}

async function rename(conversation: Conversation, title: string, screen: Screen): Promise<void> {
	try {
		screen.info.line(`title: ${await conversation.opened.rename(title)}`);
	} catch (error) {
		screen.error(`/rename: ${errorMessage(error)}`);
	}
}

/** An out-of-band title: printed, and saved beside the Trace so `omniloop sessions` shows it. */
async function title(conversation: Conversation, screen: Screen): Promise<void> {
	const { session, home } = conversation.opened;
	const controller = conversation.interrupts.begin("title interrupted");
	try {
		const text = await session.generateTitle({ signal: controller.signal });
		if (text === "") {
			screen.warn("the model wrote no title");
			return;
		}
		new SessionStore(home).saveTitle(session.id, text);
		screen.info.line(`title: ${text}`);
	} catch (error) {
		if (!controller.signal.aborted) screen.error(`no title: ${errorMessage(error)}`);
	} finally {
		conversation.interrupts.end(controller);
	}
}
