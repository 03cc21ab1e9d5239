import type { CheckpointReason, SkippedFile } from "../messages/omni-message.js";

/** A file bigger than this is left out of a checkpoint unless `checkpoints.maxFileBytes` says otherwise. */
export const DEFAULT_CHECKPOINT_FILE_BYTES = 4 * 1024 * 1024;

/** A checkpoint of a Session's workspace, as `session.checkpoints()` lists it. */
export interface Checkpoint {
	/** The checkpoint's commit in the shadow store. */
	id: string;
	/** Its place in the Session's list, from 1. */
	n: number;
	reason: CheckpointReason;
	/** The Session's last seq when it was made: it holds the files as they were before anything after that seq. */
	seq: number;
	/** Milliseconds since the epoch. */
	createdAt: number;
	skipped: SkippedFile[];
	/** For a `restore` checkpoint: the checkpoint that was restored right after it was made. */
	restoredTo?: string;
}

/** What a checkpoint's commit message holds (one line of JSON). */
export type CheckpointMeta = Omit<Checkpoint, "id">;

export function refPrefix(sessionId: string): string {
	return `refs/omniloop/${sessionId}/`;
}

export function checkpointRef(sessionId: string, n: number): string {
	return `${refPrefix(sessionId)}cp/${String(n).padStart(6, "0")}`;
}

/** The tree of the files as the agent left them after the checkpoint's turn (or restore). */
export function afterRef(sessionId: string, n: number): string {
	return `${refPrefix(sessionId)}after/${String(n).padStart(6, "0")}`;
}

export function parseMeta(subject: string): CheckpointMeta | undefined {
	try {
		const meta = JSON.parse(subject) as CheckpointMeta;
		return typeof meta.n === "number" && typeof meta.seq === "number" ? meta : undefined;
	} catch {
		return undefined;
	}
}
