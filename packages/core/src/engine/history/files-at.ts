import { existsSync } from "node:fs";
import { join } from "node:path";
import { CheckpointError } from "../../checkpoints/git-runner.js";
import {
	type CheckpointStep,
	type InheritedCheckpoint,
	SessionCheckpoints,
} from "../../checkpoints/session-checkpoints.js";
import { sessionDir, traceFileName } from "../../trace/trace-files.js";
import type { TraceHeader } from "../../trace/trace-header.js";
import { readTrace } from "../../trace/trace-reader.js";
import { newestBegunTrace } from "../../trace/unbegun-file.js";

/**
 * The checkpoint holding the files as they were at the person's message `seq` (id `messageId`)
 * of a Session, or undefined when no agent change came after it (the files now are those).
 * A fork starts with none of its own: for a message of its inherited history the files are its
 * parent's at that message (recursively), when a parent's checkpoint made before the fork covers
 * it; else the fork's first own checkpoint (its files as it began). See docs/checkpoints.md.
 */
export async function checkpointAt(
	level: SessionCheckpoints,
	seq: number,
	messageId: string,
	madeBefore = Number.POSITIVE_INFINITY,
): Promise<InheritedCheckpoint | undefined> {
	const { home } = level.store;
	const header = newestHeader(home, level.sessionId);
	const parent = header?.parent;
	if (header !== undefined && parent !== undefined) {
		const parentSeq = seqOf(home, parent.sessionId, messageId, parent.seq, level.sessionId);
		if (parentSeq !== undefined) {
			const parentDir = newestHeader(home, parent.sessionId)?.workspaceDir ?? header.workspaceDir;
			const parentLevel = new SessionCheckpoints(level.store.forSession(parent.sessionId, parentDir), parent.sessionId);
			// Only what the parent had checkpointed when the fork was made: later turns of the parent are not the fork's past.
			const forkedAt = Date.parse(header.sessionCreatedAt ?? header.createdAt);
			const inherited = await checkpointAt(parentLevel, parentSeq, messageId, forkedAt);
			if (inherited !== undefined) {
				return {
					...inherited,
					lineage: await lineage(parentLevel, inherited, parent.seq, forkedAt, parentDir !== header.workspaceDir),
				};
			}
		}
	}
	return (await level.list()).find((c) => c.seq > seq && c.createdAt <= madeBefore);
}

/**
 * The parent's checkpoints a fork's restore to `inherited` checks for changes made outside the
 * agent: from it (or, when it is a grandparent's, from the parent's first) up to the fork. A fork
 * in the same folder goes on from the parent's files as they were when it was made; one in a new
 * folder from the checkpoint at its point (`forkSeq`), written there: the parent's later turns
 * were not in that folder.
 */
async function lineage(
	parentLevel: SessionCheckpoints,
	inherited: InheritedCheckpoint,
	forkSeq: number,
	forkedAt: number,
	newFolder: boolean,
): Promise<CheckpointStep[]> {
	const own = inherited.lineage === undefined;
	let steps = await parentLevel.steps(own ? inherited.n : 1, forkedAt);
	if (newFolder) {
		const start = steps.find((c) => c.seq > forkSeq);
		if (start !== undefined) steps = [...steps.filter((c) => c.n < start.n), { ...start, after: start.id }];
	}
	return [...(inherited.lineage ?? []), ...steps];
}

function newestHeader(home: string, sessionId: string): TraceHeader | undefined {
	const dir = sessionDir(home, sessionId);
	const latest = existsSync(dir) ? newestBegunTrace(dir) : 0;
	return latest === 0 ? undefined : readTrace(join(dir, traceFileName(latest))).header;
}

/**
 * The seq the person's message `messageId` has in the parent's Trace (a fork's copy keeps its id),
 * when it came before the fork's point `forkSeq`; undefined when the fork itself wrote it.
 */
function seqOf(home: string, parentId: string, messageId: string, forkSeq: number, forkId: string): number | undefined {
	const dir = sessionDir(home, parentId);
	const latest = existsSync(dir) ? newestBegunTrace(dir) : 0;
	if (latest === 0) {
		throw new CheckpointError(
			`Session ${forkId} is a fork of Session ${parentId}, whose Trace (${dir}) is gone: the files at its inherited messages cannot be known`,
			"no_checkpoint",
		);
	}
	for (let n = 1; n <= latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const found = readTrace(path).messages.find((m) => m.type === "user_text" && m.id === messageId);
		if (found !== undefined) return found.seq < forkSeq ? found.seq : undefined;
	}
	return undefined;
}
