import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { SessionCheckpoints } from "../../checkpoints/session-checkpoints.js";
import { ShadowStore } from "../../checkpoints/shadow-store.js";
import type { ModelMessage } from "../../messages/omni-message.js";
import { traceFileName } from "../../trace/trace-files.js";
import type { TraceHeader } from "../../trace/trace-header.js";
import { readTrace } from "../../trace/trace-reader.js";
import { newestBegunTrace } from "../../trace/unbegun-file.js";
import { RunInputError, SessionNotFoundError } from "../session/errors.js";
import { checkpointAt } from "./files-at.js";
import { rebuildFromTrace } from "./resume.js";
import { withoutRewound } from "./rewind.js";

/** How `agent.forkSession` makes the new Session: where it works, with which files. */
export interface ForkOptions {
	/**
	 * A new folder (absent or empty) that gets the workspace's files as they were before message
	 * `seq` (its checkpoint); the fork works there. Default: the fork shares the parent's workspace.
	 */
	workspaceDir?: string;
}

/**
 * A file or folder of the parent's workspace that a fork into a new folder did not get:
 * `too_big` (over `checkpoints.maxFileBytes` at the fork's point, `bytes` its size then), `ignored`
 * (left out by the ignore rules: `.env`, `node_modules/`), `nested_repository` (a folder holding
 * a repository of its own). A folder's path ends with `/`. See docs/checkpoints.md.
 */
export interface LeftOutFile {
	path: string;
	reason: "too_big" | "ignored" | "nested_repository";
	bytes?: number;
}

/** What a fork starts from: the parent's history before the message, and where the fork works. */
export interface ForkPoint {
	header: TraceHeader;
	history: ModelMessage[];
	workspaceDir: string;
	/** With a new folder: what of the parent's files was not written there (empty otherwise). */
	leftOut: LeftOutFile[];
}

/**
 * Reads Session `sessionId`'s context (from its newest Trace file, rewinds applied) up to the
 * person's message `seq`; with `workspaceDir`, writes the files as they were then into it.
 * Nothing of the parent is written.
 */
export async function forkPoint(
	home: string,
	traceDir: string,
	sessionId: string,
	seq: number,
	options: ForkOptions,
	maxFileBytes: number | undefined,
): Promise<ForkPoint> {
	const latest = existsSync(traceDir) ? newestBegunTrace(traceDir) : 0;
	if (latest === 0) throw new SessionNotFoundError(sessionId, traceDir);
	const { header, messages } = readTrace(join(traceDir, traceFileName(latest)));
	const { context } = rebuildFromTrace(withoutRewound(messages));
	const at = context.findIndex((m) => m.type === "user_text" && m.seq === seq);
	if (at === -1) {
		throw new RunInputError(
			`forkSession(${sessionId}, ${seq}): seq ${seq} is not a person's message in that Session's context (since its last compaction)`,
		);
	}
	if (options.workspaceDir === undefined) {
		return { header, history: context.slice(0, at), workspaceDir: header.workspaceDir, leftOut: [] };
	}
	const dir = resolve(options.workspaceDir);
	if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
		throw new RunInputError(`forkSession: workspaceDir ${dir} must be a new or empty folder`);
	}
	refuseNested(realOf(dir), header.workspaceDir);
	if (maxFileBytes === undefined) {
		throw new RunInputError(
			"forkSession: workspaceDir needs checkpoints (checkpoints.enabled is false in omniloop.yaml)",
		);
	}
	const store = ShadowStore.at(home, sessionId, header.workspaceDir, maxFileBytes);
	const checkpoints = new SessionCheckpoints(store, sessionId);
	const message = context[at] as ModelMessage;
	// No agent change after the message: the files are as they are now.
	const checkpoint = (await checkpointAt(checkpoints, seq, message.id)) ?? (await checkpoints.current());
	const tree = "id" in checkpoint ? checkpoint.id : checkpoint.tree;
	await store.materialize(tree, dir);
	// The parent's index is not touched: a throwaway one lists what the tree lacks of its files now.
	const { ignored, nested } = await store.leftOutOf(tree);
	const leftOut: LeftOutFile[] = [
		...checkpoint.skipped.map(({ path, bytes }) => ({ path, reason: "too_big" as const, bytes })),
		...ignored.map((path) => ({ path, reason: "ignored" as const })),
		...nested.map((path) => ({ path, reason: "nested_repository" as const })),
	];
	// The fork records where its files really are, so a link changed later cannot move its workspace.
	return { header, history: context.slice(0, at), workspaceDir: realpathSync(dir), leftOut };
}

/**
 * One workspace inside the other would put the fork's files into the parent's checkpoints (and a
 * parent's undo would delete them), or the parent's into the fork's: refused (docs/checkpoints.md).
 */
function refuseNested(forkDir: string, parentDir: string): void {
	const inside = (a: string, b: string) => a === b || a.startsWith(b.endsWith(sep) ? b : `${b}${sep}`);
	if (inside(forkDir, parentDir) || inside(parentDir, forkDir)) {
		throw new RunInputError(
			`forkSession: workspaceDir ${forkDir} and the parent's workspace ${parentDir} must not lie one inside the other (a checkpoint of one would hold the other's files): choose a folder beside it`,
		);
	}
}

/** The real path of `dir`, which may not exist yet: its nearest existing folder's real path, and the rest. */
function realOf(dir: string): string {
	let existing = dir;
	while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
	return join(realpathSync(existing), relative(existing, dir));
}
