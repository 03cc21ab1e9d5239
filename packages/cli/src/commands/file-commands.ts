import { dirname, resolve } from "node:path";
import type { FileChange, LeftOutFile, OmniMessage, UserText } from "@omniloop/core";
import { errorMessage, parseMarkers } from "@omniloop/core/internal";
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
				const picked = await pickMessage(conversation, session, "rewind to before which message");
				if (picked === undefined) return true;
				const { seq } = picked;
				const files = args.includes("--files");
				// The checkpoint a rewind restores: the first made after that message (docs/checkpoints.md).
				const target = files ? (await session.checkpoints()).find((c) => c.seq > seq) : undefined;
				if (target !== undefined && !(await confirmRestore(conversation, session, target.id, confirm))) {
					screen.info.line("not rewound");
					return true;
				}
				const events = await session.rewind(seq, { files, overwrite });
				// The rewind's own line names the message as the picker showed it, not by its seq.
				show(
					conversation,
					events.filter((event) => event.type !== "session_rewound"),
				);
				if (events.some((event) => event.type === "session_rewound"))
					screen.info.line(
						screen.info.style.dim(
							`⋯ rewound to before message ${picked.number} (${picked.label}): it and what followed are gone from the conversation`,
						),
					);
				return true;
			}
			case "/fork": {
				const picked = await pickMessage(conversation, session, "fork from before which message");
				if (picked === undefined) return true;
				const { seq } = picked;
				const dir = args.find((a) => !a.startsWith("--"));
				// Beside the workspace: a folder inside it would be in the parent's checkpoints (docs/checkpoints.md).
				const folder = dir === undefined ? undefined : resolve(dirname(conversation.opened.workspaceDir), dir);
				const { id: forkId, leftOut } = await session.fork(seq, folder);
				const where = folder === undefined ? "" : ` · its files are in ${folder}`;
				screen.info.line(`forked as Session ${forkId}; continue it with: omniloop chat --resume ${forkId}${where}`);
				for (const line of leftOutLines(leftOut)) screen.info.line(line);
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

/** A message the picker offered: its seq, its number in the list and how the list showed it. */
interface PickedMessage {
	seq: number;
	number: number;
	label: string;
}

/** A numbered list of the person's messages in the context; the number typed picks one (empty: none). */
async function pickMessage(
	conversation: Conversation,
	session: SessionFiles,
	question: string,
): Promise<PickedMessage | undefined> {
	const { screen } = conversation;
	const mine = await session.personMessages();
	if (mine.length === 0) {
		screen.warn("there is no message of yours in the conversation (since its last compaction)");
		return undefined;
	}
	mine.forEach((m, i) => {
		screen.info.line(`${i + 1}. ${personMessageLabel(m)}`);
	});
	const answer = (await conversation.input.question(`${question}? [1-${mine.length}, empty to cancel] `))?.trim();
	if (answer === undefined || answer === "") return undefined;
	const picked = mine[Number(answer) - 1];
	if (picked === undefined) {
		screen.warn(`no message ${answer}`);
		return undefined;
	}
	return { seq: picked.seq, number: Number(answer), label: `"${personMessageLabel(picked)}"` };
}

const LABEL_CHARS = 70;

/**
 * A person's message as the pickers show it: its first line, without the markers the model reads
 * around it; a steer (sent while a Task ran, `[user_steering]…` for the model) says so.
 */
export function personMessageLabel(message: Pick<UserText, "text" | "steer">): string {
	const blocks = parseMarkers(message.text);
	const steer = message.steer ?? blocks.find((block) => block.tag === "user_steering")?.body;
	let text = steer ?? message.text;
	if (steer === undefined) {
		for (const block of [...blocks].reverse())
			text = `${text.slice(0, block.start)}${block.body}${text.slice(block.end)}`;
	}
	const line = text.trim().split("\n")[0] ?? "";
	const short = line.length > LABEL_CHARS ? `${line.slice(0, LABEL_CHARS - 1)}…` : line;
	return steer === undefined ? short : `(steer) ${short}`;
}

const LEFT_OUT_WHY = {
	too_big: "over checkpoints.maxFileBytes",
	ignored: "ignored",
	nested_repository: "a nested repository",
} as const;

/** What a fork into a new folder did not copy there, one line each (none when it copied everything). */
export function leftOutLines(leftOut: readonly LeftOutFile[]): string[] {
	if (leftOut.length === 0) return [];
	const shown = leftOut.slice(0, 20).map((file) => {
		const size = file.bytes === undefined ? "" : `, ${file.bytes} bytes`;
		return `  ${file.path} (${LEFT_OUT_WHY[file.reason]}${size})`;
	});
	const more = leftOut.length > shown.length ? [`  … and ${leftOut.length - shown.length} more`] : [];
	return [`not copied into the fork's folder (${leftOut.length}; its .git is never copied):`, ...shown, ...more];
}
