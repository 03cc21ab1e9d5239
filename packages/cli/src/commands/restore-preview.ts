import type { FileChange } from "@omniloop/core";
import type { Conversation } from "../conversation/conversation.js";
import type { SessionFiles } from "../session/session-files.js";
import type { Style } from "../terminal/style.js";
import { short } from "../view/file-events.js";

/** A file's diff from its first hunk on: git's header lines (paths, modes, blob ids) left out. */
export function hunks(diff: string): string[] {
	if (isBinary(diff)) return ["binary"];
	const lines = diff.split("\n");
	const first = lines.findIndex((line) => line.startsWith("@@"));
	return first === -1 ? [] : lines.slice(first);
}

/** The shadow store diffs with `--binary` ("GIT binary patch"); plain git says "Binary files … differ". */
export function isBinary(diff: string): boolean {
	return /^(GIT binary patch|Binary files )/m.test(diff);
}

/** The lines a file's diff adds and removes (its hunks only). */
export function lineCounts(diff: string): { added: number; removed: number } {
	let added = 0;
	let removed = 0;
	for (const line of hunks(diff)) {
		if (line.startsWith("+")) added++;
		else if (line.startsWith("-")) removed++;
	}
	return { added, removed };
}

/**
 * Shows what restoring `checkpointId` would do — each file with its +/− lines, the conflicts
 * apart (kept unless `overwrite`, docs/checkpoints.md) — and asks before it is done, unless
 * `yes` (the command's `--yes`, or the CLI started with `--yes`). True when the restore may go on.
 */
export async function confirmRestore(
	conversation: Conversation,
	session: Pick<SessionFiles, "checkpointDiff">,
	checkpointId: string,
	options: { overwrite: boolean; yes: boolean },
): Promise<boolean> {
	const { screen } = conversation;
	const style = screen.out.style;
	const files = await session.checkpointDiff(checkpointId);
	const applied = files.filter((f) => options.overwrite || f.conflict !== true);
	const kept = files.filter((f) => !options.overwrite && f.conflict === true);
	if (files.length === 0) {
		screen.info.line(`the files are as at checkpoint ${short(checkpointId)} already: the restore changes none`);
		return true;
	}
	screen.info.line(`restoring checkpoint ${short(checkpointId)} changes ${applied.length} file(s):`);
	for (const file of applied) {
		const overwritten = file.conflict === true ? style.yellow("  (changed outside the agent since: overwritten)") : "";
		screen.info.line(`  ${fileLine(file, style)}${overwritten}`);
	}
	if (kept.length > 0) {
		screen.info.line(
			style.yellow(`kept, changed outside the agent since (--overwrite restores them too): ${kept.length} file(s):`),
		);
		for (const file of kept) screen.info.line(style.yellow(`  ${fileLine(file, style)}`));
	}
	if (options.yes) return true;
	if (applied.length === 0) {
		screen.info.line("nothing to restore without --overwrite");
		return false;
	}
	const answer = (await conversation.input.question("restore them? [y/N] "))?.trim().toLowerCase();
	if (answer === "y" || answer === "yes") return true;
	screen.info.line("not restored: the files are as they were");
	return false;
}

/** One file of a restore's preview: its status, path and +/− lines ("binary" for a binary file's). */
export function fileLine(file: FileChange, style: Style): string {
	const { added, removed } = lineCounts(file.diff);
	const counts = isBinary(file.diff) ? "binary" : `${style.green(`+${added}`)} ${style.red(`−${removed}`)}`;
	return `${file.status.padEnd(8)} ${file.path}  ${counts}`;
}
