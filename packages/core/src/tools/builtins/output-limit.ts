import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { forkAncestorDirs, inheritedOutputsHold } from "../../session-store/fork-ancestry.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../../trace/private-files.js";
import type { ToolContext } from "../tool.js";
import { isInside, toRelative, type WorkspacePath } from "./workspace.js";

/** How much of one tool output the model sees. Whichever cap is reached first applies. */
export interface OutputLimit {
	readonly maxLines: number;
	readonly maxChars: number;
}

/** The one cap every built-in tool uses: about 12k tokens, enough for a large file or a test run. */
export const DEFAULT_OUTPUT_LIMIT: OutputLimit = { maxLines: 2_000, maxChars: 50_000 };

/** Which part of a cut output is kept: the start (files, listings) or the end (a command's result). */
export type KeepPart = "start" | "end";

/** The folder under `ctx.sessionDir` where cut outputs are saved whole. */
export const TOOL_OUTPUTS_FOLDER = "tool-outputs";

/**
 * Returns `text` unchanged when it fits `limit`; otherwise the kept part plus a note saying what was
 * cut and where the whole text was saved (`<sessionDir>/tool-outputs/<callId>.txt`).
 */
export async function limitOutput(
	text: string,
	ctx: Pick<ToolContext, "sessionDir" | "callId">,
	keep: KeepPart = "start",
	limit: OutputLimit = DEFAULT_OUTPUT_LIMIT,
): Promise<string> {
	const lines = text.split("\n");
	if (lines.length <= limit.maxLines && text.length <= limit.maxChars) return text;
	const savedAt = await saveFullOutput(text, ctx);
	const shown = keepPart(lines, keep, limit);
	const note = `[output cut: showing the ${keep === "start" ? "first" : "last"} ${describeCut(shown, lines.length, text.length)}; ${savedAtNote(savedAt)}read_file reads it, with offset and limit)]`;
	return keep === "start" ? `${shown.text}\n${note}` : `${note}\n${shown.text}`;
}

/** How a cut output's note names the file its full text was saved in (what a fork's read_file looks for). */
function savedAtNote(file: string): string {
	return `the full output is in ${file} (`;
}

interface KeptPart {
	text: string;
	/** Whole lines kept; 0 when even one line was too long and it was cut by characters. */
	lines: number;
	cutByChars: boolean;
}

function keepPart(lines: readonly string[], keep: KeepPart, limit: OutputLimit): KeptPart {
	const picked = keep === "start" ? lines.slice(0, limit.maxLines) : lines.slice(-limit.maxLines);
	const text = picked.join("\n");
	if (text.length <= limit.maxChars) return { text, lines: picked.length, cutByChars: false };
	// Cut at a line break when there is one, so the model never sees half a line it might misread.
	if (keep === "start") {
		const head = text.slice(0, limit.maxChars);
		const lastBreak = head.lastIndexOf("\n");
		const kept = lastBreak > 0 ? head.slice(0, lastBreak) : head;
		return { text: kept, lines: lastBreak > 0 ? countLines(kept) : 0, cutByChars: true };
	}
	const tail = text.slice(-limit.maxChars);
	const firstBreak = tail.indexOf("\n");
	const kept = firstBreak >= 0 && firstBreak < tail.length - 1 ? tail.slice(firstBreak + 1) : tail;
	return { text: kept, lines: kept === tail ? 0 : countLines(kept), cutByChars: true };
}

function describeCut(shown: KeptPart, totalLines: number, totalChars: number): string {
	if (!shown.cutByChars) return `${formatCount(shown.lines)} of ${formatCount(totalLines)} lines`;
	const chars = `${formatCount(shown.text.length)} of ${formatCount(totalChars)} characters`;
	return shown.lines > 0 ? `${chars} (${formatCount(shown.lines)} of ${formatCount(totalLines)} lines)` : chars;
}

async function saveFullOutput(text: string, ctx: Pick<ToolContext, "sessionDir" | "callId">): Promise<string> {
	const folder = path.join(ctx.sessionDir, TOOL_OUTPUTS_FOLDER);
	await mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
	// Call ids come from the provider; keep the file name to characters every file system accepts.
	const file = path.join(folder, `${ctx.callId.replace(/[^A-Za-z0-9_.-]/g, "_") || "call"}.txt`);
	await writeFile(file, text, { encoding: "utf8", mode: PRIVATE_FILE_MODE });
	return file;
}

/**
 * A cut output the Session saved (`requested`, an absolute path in `<sessionDir>/tool-outputs`,
 * as its note gives it), for read_file: it lies outside the workspace, under the omniloop home
 * the file tools never reach, yet it is the Session's own, made to be read in parts. A fork's
 * history carries the notes of the Sessions it was forked from, so those of their saved outputs
 * its Trace names count too (forkAncestorDirs, inheritedOutputsHold). Undefined for any other path,
 * which the workspace rules then judge. Only an existing file's real path counts, so nothing else
 * under the home is reached through a `..` or a link.
 */
export async function savedOutputPath(requested: string, sessionDir: string): Promise<WorkspacePath | undefined> {
	if (!path.isAbsolute(requested) || requested.includes("\0")) return undefined;
	const real = await realpath(requested).catch(() => undefined);
	if (real === undefined) return undefined;
	const own = await savedIn(sessionDir, requested, real);
	if (own !== undefined || path.basename(path.dirname(real)) !== TOOL_OUTPUTS_FOLDER) return own;
	// Another Session's saved output: readable when that Session is one this one was forked from,
	// and this one's inherited history notes the file (not what it saved after the fork).
	const owner = path.basename(path.dirname(path.dirname(real)));
	const ancestor = forkAncestorDirs(sessionDir).find((dir) => path.basename(dir) === owner);
	if (ancestor === undefined || !inheritedOutputsHold(sessionDir, savedAtNote(requested))) return undefined;
	return savedIn(ancestor, requested, real);
}

/** `real` as a file in `sessionDir`'s saved outputs; undefined when it is not one. */
async function savedIn(sessionDir: string, requested: string, real: string): Promise<WorkspacePath | undefined> {
	const folder = await realpath(path.join(sessionDir, TOOL_OUTPUTS_FOLDER)).catch(() => undefined);
	if (folder === undefined || real === folder || !isInside(real, folder)) return undefined;
	return { requested, real, workspace: folder, denied: [], relative: toRelative(folder, real) };
}

function countLines(text: string): number {
	return text.split("\n").length;
}

/**
 * 18345 → "18,345": cut notes are read by a model, and grouped digits are read right. By hand:
 * the first toLocaleString loads ICU's number data (~14 ms), and tool descriptions use this at load.
 */
export function formatCount(n: number): string {
	const grouped = String(Math.trunc(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	return n < 0 ? `-${grouped}` : grouped;
}
