import type { OmniMessage } from "@omniloop/core";
import type { Style } from "../terminal/style.js";

type FileEvent = Extract<
	OmniMessage,
	{
		type:
			| "checkpoint_created"
			| "checkpoint_failed"
			| "checkpoint_restored"
			| "session_rewound"
			| "instructions_loaded";
	}
>;

export function isFileEvent(message: OmniMessage): message is FileEvent {
	return (
		message.type === "checkpoint_created" ||
		message.type === "checkpoint_failed" ||
		message.type === "checkpoint_restored" ||
		message.type === "session_rewound" ||
		message.type === "instructions_loaded"
	);
}

/**
 * What a checkpoint, a restore, a rewind or a reload of the instructions says on screen.
 * `undoHint`: a checkpoint says that /undo puts the files back — only where /undo is a command
 * (a live chat), not in `omniloop run` nor in a replay of earlier turns, where it would undo
 * another turn than the one shown.
 */
export function fileEventLines(message: FileEvent, style: Style, undoHint: boolean): string[] {
	switch (message.type) {
		case "checkpoint_created": {
			const left = message.skipped.map((s) => `${s.path} (${s.bytes} bytes)`);
			// A restore's own checkpoint is undone with the /restore its restored line names: /undo goes a turn further back.
			const hint = undoHint && message.reason !== "restore" ? " — /undo puts the files back" : "";
			const lines = [style.dim(`⋯ checkpoint ${short(message.checkpointId)} (${message.reason})${hint}`)];
			if (left.length > 0) lines.push(style.yellow(`  left out of it, too big: ${left.join(", ")}`));
			return lines;
		}
		case "checkpoint_failed":
			return [style.yellow(`⋯ no checkpoint (${message.error.message}); this turn's changes cannot be undone`)];
		case "checkpoint_restored": {
			const lines = [
				style.dim(
					`⋯ restored ${message.restored.length} file(s) to checkpoint ${short(message.checkpointId)}; undo it with /restore ${short(message.before)}`,
				),
			];
			if (message.conflicts.length > 0) {
				// The checkpoint this restore went to: a second /undo would go a turn further back (docs/checkpoints.md).
				lines.push(
					style.yellow(
						`  kept, changed outside the agent: ${message.conflicts.join(", ")} (/restore ${short(message.checkpointId)} --overwrite to restore them too)`,
					),
				);
			}
			return lines;
		}
		case "session_rewound":
			// toSeq is the Trace's numbering, not one a person saw: /rewind's own line names the message.
			return [style.dim("⋯ rewound: the conversation goes on from before one of your earlier messages")];
		case "instructions_loaded":
			return [style.dim(`⋯ instructions reloaded: ${instructionsSummary(message.files)}`)];
	}
}

/** "AGENTS.md files: a (12 B), b (40 B, cut)" — or that there are none. */
export function instructionsSummary(files: readonly { path: string; bytes: number; truncated: boolean }[]): string {
	if (files.length === 0) return "no AGENTS.md found";
	return files.map((f) => `${f.path} (${f.bytes} B${f.truncated ? ", cut to the limit" : ""})`).join(", ");
}

export function short(id: string): string {
	return id.slice(0, 10);
}
