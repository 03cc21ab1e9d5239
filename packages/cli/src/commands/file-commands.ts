import { dirname, resolve } from "node:path";
import type { FileChange, OmniMessage } from "@omniloop/core";
import { errorMessage } from "@omniloop/core/internal";
import type { Conversation } from "../conversation/conversation.js";
import type { SessionFiles } from "../session/session-files.js";
import type { Screen } from "../terminal/screen.js";
import { instructionsSummary, short } from "../view/file-events.js";
import { confirmRestore, hunks } from "./restore-preview.js";

/** The /commands for the workspace's files and the conversation's history (docs/checkpoints.md). */
export const FILE_HELP = [
	"/undo [--overwrite] [--yes] undo the last turn's changes to the files (again: the turn before)",
	"/diff                     every file the agent changed in this Session, with its diff",
	"/checkpoints              the checkpoints of the workspace",
	"/restore <id> [--overwrite] [--yes] restore the files to a checkpoint (itself checkpointed first)",
	"/rewind [--files]         go back to before one of your messages (a picker); --files: the files too",
	"                          a restore shows its files and +/− lines first, and asks unless --yes",
	"/fork [dir]               a new Session from before one of your messages (a picker); dir: its files there",
	"                          (a new folder beside the workspace: a relative dir is taken from the workspace's parent)",
	"/instructions [reload]    the AGENTS.md files in the system prompt; reload reads them again",
];

/** Runs one of FILE_HELP's commands; false when `name` is none of them. */
export async function runFileCommand(name: string, args: string[], conversation: Conversation): Promise<boolean> {
	const { screen } = conversation;
	if (!FILE_HELP.some((line) => line.startsWith(`${name} `))) return false;
	// In-process or on the local server, the same calls (session/session-files.ts).
	const session = conversation.opened.files;
	const overwrite = args.includes("--overwrite");
	// Started with --yes, the person asked not to be asked (docs/checkpoints.md).
	const confirm = { overwrite, yes: args.includes("--yes") || conversation.options.yes };
	try {
		switch (name) {
			case "/undo": {
				const target = await session.undoTarget();
				if (target === undefined) screen.warn("no turn left to undo");
				else if (await confirmRestore(conversation, session, target.id, confirm))
					show(conversation, await session.undo({ overwrite }));
				return true;
			}
			case "/restore": {
				const id = args.find((a) => !a.startsWith("--"));
				if (id === undefined) screen.warn("/restore needs a checkpoint id (/checkpoints lists them)");
				else if (await confirmRestore(conversation, session, id, confirm))
					show(conversation, await session.restore(id, { overwrite }));
				return true;
			}
			case "/checkpoints":
				await listCheckpoints(conversation, session);
				return true;
			case "/diff":
				printChanges(screen, await session.filesChanged());
				return true;
			case "/rewind": {
				const seq = await pickMessage(conversation, session, "rewind to before which message");
				if (seq === undefined) return true;
				const files = args.includes("--files");
				// The checkpoint a rewind restores: the first made after that message (docs/checkpoints.md).
				const target = files ? (await session.checkpoints()).find((c) => c.seq > seq) : undefined;
				if (target !== undefined && !(await confirmRestore(conversation, session, target.id, confirm))) {
					screen.info.line("not rewound");
					return true;
				}
				show(conversation, await session.rewind(seq, { files, overwrite }));
				return true;
			}
			case "/fork": {
				const seq = await pickMessage(conversation, session, "fork from before which message");
				if (seq === undefined) return true;
				const dir = args.find((a) => !a.startsWith("--"));
				const forkId = await session.fork(
					seq,
					// Beside the workspace: a folder inside it would be in the parent's checkpoints (docs/checkpoints.md).
					dir === undefined ? undefined : resolve(dirname(conversation.opened.workspaceDir), dir),
				);
				screen.info.line(`forked as Session ${forkId}; continue it with: omniloop chat --resume ${forkId}`);
				return true;
			}
			case "/instructions":
				if (args[0] === "reload") show(conversation, await session.reloadInstructions());
				else screen.info.line(`instructions: ${instructionsSummary(await session.instructions())}`);
				return true;
			default:
				return false;
		}
	} catch (error) {
		screen.error(`${name}: ${errorMessage(error)}`);
		return true;
	}
}

function show(conversation: Conversation, events: readonly OmniMessage[]): void {
	for (const event of events) conversation.view.show(event);
	conversation.view.end();
}

async function listCheckpoints(conversation: Conversation, session: SessionFiles): Promise<void> {
	const { screen } = conversation;
	const checkpoints = await session.checkpoints();
	if (checkpoints.length === 0) screen.info.line("no checkpoints yet (one is made before a turn's first change)");
	for (const c of checkpoints) {
		const when = new Date(c.createdAt).toISOString().slice(11, 19);
		const restored = c.restoredTo === undefined ? "" : ` (before restoring ${short(c.restoredTo)})`;
		screen.info.line(`${short(c.id)}  ${when}  ${c.reason}${restored}`);
	}
}

function printChanges(screen: Screen, files: readonly FileChange[]): void {
	if (files.length === 0) {
		screen.info.line("the agent has changed no file in this Session");
		return;
	}
	for (const file of files) {
		screen.info.line(screen.out.style.bold(`${file.status} ${file.path}`));
		for (const line of hunks(file.diff)) {
			const style = screen.out.style;
			screen.info.line(line.startsWith("+") ? style.green(line) : line.startsWith("-") ? style.red(line) : line);
		}
	}
}

/** A numbered list of the person's messages in the context; the number typed picks one (empty: none). */
async function pickMessage(
	conversation: Conversation,
	session: SessionFiles,
	question: string,
): Promise<number | undefined> {
	const { screen } = conversation;
	const mine = await session.personMessages();
	if (mine.length === 0) {
		screen.warn("there is no message of yours in the conversation (since its last compaction)");
		return undefined;
	}
	mine.forEach((m, i) => {
		screen.info.line(`${i + 1}. ${m.text.split("\n")[0]?.slice(0, 70) ?? ""}`);
	});
	const answer = (await conversation.input.question(`${question}? [1-${mine.length}, empty to cancel] `))?.trim();
	if (answer === undefined || answer === "") return undefined;
	const picked = mine[Number(answer) - 1];
	if (picked === undefined) {
		screen.warn(`no message ${answer}`);
		return undefined;
	}
	return picked.seq;
}
