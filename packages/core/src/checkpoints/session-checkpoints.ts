import { readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CheckpointReason } from "../messages/omni-message.js";
import {
	afterRef,
	type Checkpoint,
	type CheckpointMeta,
	checkpointRef,
	parseMeta,
	refPrefix,
} from "./checkpoint-meta.js";
import { CheckpointError } from "./git-runner.js";
import type { ShadowStore, Snapshot, TreeChange } from "./shadow-store.js";

/** How `session.restore` and `session.undo` treat files changed outside the agent. */
export interface RestoreOptions {
	/** Restore files changed outside the agent too (default: they are kept, and reported as conflicts). */
	overwrite?: boolean;
}

/** What a restore did (also the `checkpoint_restored` event's fields). */
export interface RestoreResult {
	checkpointId: string;
	/** The checkpoint of the files just before the restore: restoring it undoes the restore. */
	before: string;
	restored: string[];
	conflicts: string[];
}

/** One file the agent changed (or a restore would change), with its unified diff. */
export interface FileChange {
	path: string;
	status: "added" | "modified" | "deleted";
	diff: string;
	/** In a restore's preview: changed outside the agent since the checkpoint, so kept unless `overwrite`. */
	conflict?: true;
}

/** A checkpoint, and the files as the agent left them after its turn (or restore) when it was sealed. */
export interface CheckpointStep extends Checkpoint {
	after: string | undefined;
}

/**
 * A checkpoint of a parent Session (a fork's rewind to an inherited message), with its `lineage`:
 * the parents' checkpoints from it up to where the fork began, oldest first, each with the files
 * as the agent left it — so a restore can tell what changed outside the agent since (docs/checkpoints.md).
 */
export interface InheritedCheckpoint extends Checkpoint {
	lineage?: CheckpointStep[];
}

const STATUS = { A: "added", D: "deleted", M: "modified" } as const;

/**
 * A Session's checkpoints in the shadow store: made before a turn's first change, sealed when the
 * turn's tools are done (the files as the agent left them), restored on request. Every git call
 * runs one after another, so a restore sees the seal of the turn before it. See docs/checkpoints.md.
 */
export class SessionCheckpoints {
	private queue: Promise<unknown> = Promise.resolve();
	private loaded: Checkpoint[] | undefined;
	private readonly after = new Map<number, string>();
	private unsealed: number | undefined;

	constructor(
		readonly store: ShadowStore,
		readonly sessionId: string,
	) {}

	/** A checkpoint of the workspace as it is now; `seq` is the Session's last seq. */
	create(reason: CheckpointReason, seq: number): Promise<Checkpoint> {
		return this.serial(async () => this.make(reason, seq, await this.store.snapshot()));
	}

	/** The files as the agent left them after the last checkpoint's turn: what a later restore compares with. */
	seal(): Promise<void> {
		if (this.unsealed === undefined) return Promise.resolve();
		return this.serial(async () => {
			const n = this.unsealed;
			if (n === undefined) return;
			this.unsealed = undefined;
			const { tree } = await this.store.snapshot();
			await this.store.setRef(afterRef(this.sessionId, n), tree);
			this.after.set(n, tree);
		});
	}

	/**
	 * After a crash: the last checkpoint, when it is a turn's that never got its seal and `cutOff`
	 * says its Task was cut off, is sealed with the files as they are found now — the turn's work as
	 * far as anyone knows — so an undo takes them for the agent's, not for changes made outside it.
	 * Sealed once: what the person changes after the resume is theirs, never taken for that turn's
	 * by a later seal. Resolves with the checkpoint sealed, if any.
	 */
	sealCutOff(cutOff: (turn: Checkpoint) => boolean): Promise<Checkpoint | undefined> {
		return this.serial(async () => {
			const last = (await this.all()).at(-1);
			if (last === undefined || last.reason !== "turn" || this.after.has(last.n) || !cutOff(last)) return undefined;
			const { tree } = await this.store.snapshot();
			await this.store.setRef(afterRef(this.sessionId, last.n), tree);
			this.after.set(last.n, tree);
			return last;
		});
	}

	/** Settles when no git command of the Session's runs any more (a seal queued as a Task ended). */
	idle(): Promise<void> {
		return this.queue.then(() => {});
	}

	/** Every checkpoint of the Session, oldest first. */
	list(): Promise<Checkpoint[]> {
		return this.serial(() => this.all());
	}

	/** What restoring `id` would change, file by file: from the files as they are now to the checkpoint's. */
	preview(id: string): Promise<FileChange[]> {
		return this.serial(async () => {
			const target = await this.find(id);
			const now = await this.store.snapshot();
			const changes = await this.restorable(await this.store.changes(now.tree, target.id), target, now);
			const outside = inTheWay(changes, await this.changedOutside(target, now.tree));
			const files = await this.withDiffs(now.tree, target.id, changes);
			return files.map((file) => (outside.has(file.path) ? { ...file, conflict: true } : file));
		});
	}

	/**
	 * Restores the files to checkpoint `id`, after a checkpoint of them as they are (reason
	 * `restore`). A file changed outside the agent since the checkpoint is kept unless `overwrite`.
	 * A checkpoint of a parent Session (a fork's inherited history) is given whole, not by id.
	 */
	restore(
		id: string | InheritedCheckpoint,
		seq: number,
		options: RestoreOptions = {},
	): Promise<{ result: RestoreResult; before: Checkpoint }> {
		return this.serial(async () => {
			const target = typeof id === "string" ? await this.find(id) : id;
			const now = await this.store.snapshot();
			const before = await this.make("restore", seq, now, target.id);
			const changes = await this.restorable(await this.store.changes(now.tree, target.id), target, now);
			const outside =
				options.overwrite === true ? new Set<string>() : inTheWay(changes, await this.changedOutside(target));
			const conflicts = changes.filter((c) => outside.has(c.path)).map((c) => c.path);
			const apply = changes.filter((c) => !outside.has(c.path));
			// Deletions first: a file that became a folder (or the reverse) must be out of the way before
			// the checkpoint's file or folder is written where it was.
			const gone = apply.filter((c) => c.status === "D").map((c) => c.path);
			const folders = gone.some((path) => path.includes("/")) ? await this.store.folders(target.id) : new Set<string>();
			for (const path of gone) this.remove(path, folders, target.createdAt);
			await this.store.checkout(
				target.id,
				apply.filter((c) => c.status !== "D").map((c) => c.path),
			);
			// The restored files are the agent's from now on: a later restore compares with them.
			const { tree } = await this.store.snapshot();
			await this.store.setRef(afterRef(this.sessionId, before.n), tree);
			this.after.set(before.n, tree);
			this.unsealed = undefined;
			return {
				result: { checkpointId: target.id, before: before.id, restored: apply.map((c) => c.path), conflicts },
				before,
			};
		});
	}

	/**
	 * The checkpoint `undo` restores: the newest turn's not undone yet. A restore to checkpoint N
	 * undoes every turn from N up to it, whatever comes later (a newer turn, another undo); the turns
	 * undone when N was made count as undone again (a restore of an undo's `before` redoes that
	 * undo's turns). A restore that changed nothing, every file kept as a conflict, undid nothing.
	 */
	undoTarget(): Promise<Checkpoint | undefined> {
		return this.serial(async () => {
			const all = await this.all();
			// The turns undone as each checkpoint was made (a restore's: just before its restore).
			const undoneAt = new Map<number, ReadonlySet<number>>();
			let undone: ReadonlySet<number> = new Set();
			for (const checkpoint of all) {
				undoneAt.set(checkpoint.n, undone);
				if (checkpoint.reason !== "restore" || checkpoint.restoredTo === undefined) continue;
				if (await this.keptEverything(checkpoint, checkpoint.restoredTo)) continue;
				// A restore to a parent's checkpoint (a fork's rewind) went back past every turn of its own.
				const target = all.find((c) => c.id === checkpoint.restoredTo);
				const from = target?.n ?? 0;
				const next = new Set(target === undefined ? [] : (undoneAt.get(target.n) ?? []));
				for (const c of all) if (c.reason === "turn" && c.n >= from && c.n < checkpoint.n) next.add(c.n);
				undone = next;
			}
			// A turn whose tools changed no file has nothing to undo: the next undo goes past it.
			const left = all.filter((c) => c.reason === "turn" && !undone.has(c.n));
			for (let i = left.length - 1; i >= 0; i--) {
				const turn = left[i] as Checkpoint;
				const after = await this.afterOf(turn.n);
				if (after === undefined || (await this.store.changes(turn.id, after)).length > 0) return turn;
			}
			return undefined;
		});
	}

	/** Whether restore checkpoint `restore` left the files as they were, though they differ from its target's. */
	private async keptEverything(restore: Checkpoint, target: string): Promise<boolean> {
		const after = await this.afterOf(restore.n);
		if (after === undefined) return false;
		if ((await this.store.changes(restore.id, after)).length > 0) return false;
		return (await this.store.changes(after, target)).length > 0;
	}

	/** This Session's checkpoints from number `from` on made by `madeBefore`, each with its seal (a fork's lineage). */
	steps(from: number, madeBefore: number): Promise<CheckpointStep[]> {
		return this.serial(async () => {
			const steps: CheckpointStep[] = [];
			for (const c of await this.all())
				if (c.n >= from && c.createdAt <= madeBefore) steps.push({ ...c, after: await this.afterOf(c.n) });
			return steps;
		});
	}

	/** The files as they are now (what a fork takes when no agent change came after its point). */
	current(): Promise<Snapshot> {
		return this.serial(() => this.store.snapshot());
	}

	/** Every file the agent changed across the Session, with its diff from before its first change to now. */
	filesChanged(): Promise<FileChange[]> {
		return this.serial(async () => {
			const all = await this.all();
			const first = all[0];
			if (first === undefined) return [];
			const touched = new Set<string>();
			for (const checkpoint of all) {
				const after = await this.afterOf(checkpoint.n);
				if (after === undefined) continue;
				for (const change of await this.store.changes(checkpoint.id, after)) touched.add(change.path);
			}
			const now = await this.store.snapshot();
			const changes = (await this.store.changes(first.id, now.tree)).filter((c) => touched.has(c.path));
			return this.withDiffs(first.id, now.tree, changes);
		});
	}

	private async make(reason: CheckpointReason, seq: number, snapshot: Snapshot, restoredTo?: string) {
		const all = await this.all();
		const previous = all.at(-1);
		const meta: CheckpointMeta = {
			n: (previous?.n ?? 0) + 1,
			reason,
			seq,
			createdAt: Date.now(),
			skipped: snapshot.skipped,
			...(restoredTo === undefined ? {} : { restoredTo }),
		};
		const id = await this.store.commit(snapshot.tree, previous?.id, JSON.stringify(meta));
		await this.store.setRef(checkpointRef(this.sessionId, meta.n), id);
		const checkpoint: Checkpoint = { id, ...meta };
		all.push(checkpoint);
		if (reason === "turn") this.unsealed = meta.n;
		return checkpoint;
	}

	/**
	 * Paths another hand changed since checkpoint `target`: between the files as the agent left them
	 * after one checkpoint's turn and the next checkpoint — the last of which is the restore's own,
	 * made from the files as they are now; a preview, which makes none, passes that tree as `now`.
	 */
	private async changedOutside(target: InheritedCheckpoint, now?: string): Promise<Set<string>> {
		const own = await this.all();
		const mine = own.some((c) => c.id === target.id);
		// A parent's checkpoint (a fork's rewind) is older than all of the fork's own: the parents'
		// checkpoints from it up to where the fork began come first.
		const steps: { id: string; after: string | undefined }[] = mine ? [] : [...(target.lineage ?? [])];
		for (const c of own) if (!mine || c.n >= target.n) steps.push({ id: c.id, after: await this.afterOf(c.n) });
		const outside = new Set<string>();
		let agentLeft: string | undefined;
		for (const step of steps) {
			if (agentLeft !== undefined) for (const c of await this.store.changes(agentLeft, step.id)) outside.add(c.path);
			agentLeft = step.after ?? step.id;
		}
		if (now !== undefined && agentLeft !== undefined)
			for (const c of await this.store.changes(agentLeft, now)) outside.add(c.path);
		return outside;
	}

	/**
	 * The changes a restore may make: files left out of either side (too big) are never touched, nor
	 * a file the checkpoint lacks because its ignore rules left it out (a `.gitignore` the agent
	 * rewrote since let it into the later snapshots: `.env`, `node_modules`).
	 */
	private async restorable(changes: TreeChange[], target: Checkpoint, now: Snapshot): Promise<TreeChange[]> {
		const skipped = new Set([...target.skipped, ...now.skipped].map((s) => s.path));
		const kept = changes.filter((c) => !skipped.has(c.path));
		const ignored = await this.store.ignoredBy(
			target.id,
			kept.filter((c) => c.status === "D").map((c) => c.path),
		);
		return kept.filter((c) => !ignored.has(c.path));
	}

	private async withDiffs(from: string, to: string, changes: readonly TreeChange[]): Promise<FileChange[]> {
		if (changes.length === 0) return [];
		const byPath = splitDiff(await this.store.diff(from, to));
		return changes.map((c) => ({ path: c.path, status: STATUS[c.status], diff: byPath.get(c.path) ?? "" }));
	}

	/**
	 * Deletes `path`, then each folder above it left empty that the checkpoint restored to (taken at
	 * `since`, holding the folders `folders`) did not have: one made after it (its birth time says
	 * so), by the agent's turn. A folder whose birth the file system does not tell stays.
	 */
	private remove(path: string, folders: ReadonlySet<string>, since: number): void {
		const root = this.store.place.workTree;
		rmSync(join(root, path), { force: true });
		for (let dir = dirname(path); dir !== "." && !folders.has(dir); dir = dirname(dir)) {
			try {
				const at = join(root, dir);
				const born = statSync(at).birthtimeMs;
				if (!(born > since) || readdirSync(at).length > 0) break;
				rmdirSync(at);
			} catch {
				break;
			}
		}
	}

	private async find(id: string): Promise<Checkpoint> {
		const all = await this.all();
		const found = all.find((c) => c.id === id) ?? (id.length >= 7 ? all.filter((c) => c.id.startsWith(id)) : [])[0];
		if (found === undefined) {
			throw new CheckpointError(
				`checkpoint ${id} is not one of Session ${this.sessionId}'s (${all.length} checkpoints)`,
				"not_found",
			);
		}
		return found;
	}

	private async afterOf(n: number): Promise<string | undefined> {
		await this.all();
		return this.after.get(n);
	}

	private async all(): Promise<Checkpoint[]> {
		if (this.loaded !== undefined) return this.loaded;
		const loaded: Checkpoint[] = [];
		for (const { ref, sha, subject } of await this.store.refs(refPrefix(this.sessionId))) {
			const n = Number(ref.slice(ref.lastIndexOf("/") + 1));
			if (ref.includes("/after/")) this.after.set(n, sha);
			else {
				const meta = parseMeta(subject);
				if (meta !== undefined) loaded.push({ id: sha, ...meta });
			}
		}
		loaded.sort((a, b) => a.n - b.n);
		this.loaded = loaded;
		return loaded;
	}

	private serial<T>(work: () => Promise<T>): Promise<T> {
		const next = this.queue.then(work, work);
		this.queue = next.catch(() => {});
		return next;
	}
}

/**
 * The paths of `changes` a restore keeps as conflicts: those changed outside the agent, and those
 * whose file or folder is a parent or a child of one of them (writing either would remove the
 * other: a file the person edited where the checkpoint had a folder, or the reverse).
 */
function inTheWay(changes: readonly TreeChange[], outside: ReadonlySet<string>): Set<string> {
	const conflicts = new Set(changes.map((c) => c.path).filter((path) => outside.has(path)));
	if (conflicts.size === 0) return conflicts;
	const parents = new Set<string>();
	for (const path of conflicts) for (const parent of parentsOf(path)) parents.add(parent);
	const kept = new Set(conflicts);
	for (const { path } of changes)
		if (parents.has(path) || parentsOf(path).some((parent) => conflicts.has(parent))) kept.add(path);
	return kept;
}

/** `a/b/c` → `a`, `a/b`. */
function parentsOf(path: string): string[] {
	const parents: string[] = [];
	for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) parents.push(path.slice(0, i));
	return parents;
}

/** A `git diff` output cut into one text per file (keyed by its path on the `b/` side, or `a/` for a deletion). */
function splitDiff(text: string): Map<string, string> {
	const byPath = new Map<string, string>();
	const parts = text.split(/^(?=diff --git )/m).filter((part) => part.startsWith("diff --git "));
	for (const part of parts) {
		const header = part.slice(0, part.indexOf("\n"));
		const match = /^diff --git a\/(.*) b\/(.*)$/.exec(header);
		if (match === null) continue;
		byPath.set(match[2] as string, part);
		if (match[1] !== match[2]) byPath.set(match[1] as string, part);
	}
	return byPath;
}
