import { randomUUID } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import type { SkippedFile } from "../messages/omni-message.js";
import { checkpointIgnores } from "./checkpoint-ignores.js";
import { CheckpointError, type GitPlace, nulList, runGit } from "./git-runner.js";
import { seedIndex } from "./index-seed.js";

/** A tree of the workspace as it is now, and the files left out of it. */
export interface Snapshot {
	tree: string;
	skipped: SkippedFile[];
}

/** One path that differs between two trees: Added, Deleted or Modified going from the first to the second. */
export interface TreeChange {
	status: "A" | "D" | "M";
	path: string;
}

/**
 * The shadow git store under the omniloop home, as one Session uses it: a bare repository shared
 * by every Session (so contents are stored once), the Session's own index, and the workspace as
 * the work tree. The workspace's own `.git` is never read or written (git never adds a `.git`);
 * what git would ignore there is left out (its `.gitignore` files, and the rules checkpointIgnores
 * reads from outside it). See docs/checkpoints.md.
 */
export class ShadowStore {
	private ready: Promise<void> | undefined;
	/** Whether the index was started from another Session's of the same workspace (or found there). */
	private seeded = false;
	/** `-c core.excludesFile=…` with the ignore rules git reads from outside the work tree (checkpointIgnores), when there are any. */
	private excludes: string[] = [];

	private constructor(
		readonly place: GitPlace,
		private readonly maxFileBytes: number,
		/** Paths inside the workspace never snapshotted: the omniloop home, when it lies inside. */
		private readonly excluded: readonly string[],
	) {}

	/** The store of `home` for one Session's workspace; nothing runs until it is first used. */
	static at(home: string, sessionId: string, workspaceDir: string, maxFileBytes: number): ShadowStore {
		const gitDir = join(home, "checkpoints.git");
		const place: GitPlace = { gitDir, workTree: workspaceDir, indexFile: join(gitDir, "indexes", sessionId) };
		const homeInside = relative(workspaceDir, home);
		const excluded = homeInside !== "" && !homeInside.startsWith("..") ? [homeInside] : [];
		return new ShadowStore(place, maxFileBytes, excluded);
	}

	/** The omniloop home the store lies in. */
	get home(): string {
		return dirname(this.place.gitDir);
	}

	/** The same shared store as another Session uses it (a fork reads its parent's checkpoints). */
	forSession(sessionId: string, workspaceDir: string): ShadowStore {
		return ShadowStore.at(this.home, sessionId, workspaceDir, this.maxFileBytes);
	}

	/** The shared store is made by the first Session that needs it. */
	private init(): Promise<void> {
		this.ready ??= (async () => {
			const { gitDir, indexFile } = this.place;
			if (!existsSync(join(gitDir, "HEAD"))) {
				mkdirSync(gitDir, { recursive: true, mode: 0o700 });
				await runGit(this.place, ["init", "--bare", "--quiet", gitDir], { storeOnly: true });
			}
			mkdirSync(dirname(indexFile), { recursive: true, mode: 0o700 });
			const patterns = await checkpointIgnores(this.place.workTree);
			if (patterns.length > 0) {
				// The lowest precedence git has: the workspace's own .gitignore files still win over these.
				const file = `${indexFile}.ignore`;
				writeFileSync(file, `${patterns.join("\n")}\n`, { mode: 0o600 });
				this.excludes = ["-c", `core.excludesFile=${file}`];
			}
		})().catch((error: unknown) => {
			this.ready = undefined;
			throw error;
		});
		return this.ready;
	}

	/** Records the workspace's files as a tree (new contents go into the shared store). */
	async snapshot(): Promise<Snapshot> {
		this.checkWorkTree();
		await this.init();
		if (!this.seeded) {
			seedIndex(this.place);
			this.seeded = true;
		}
		const candidates = nulList(
			await runGit(this.place, [...this.excludes, "ls-files", "-z", "--others", "--modified", "--exclude-standard"]),
		);
		const skipped: SkippedFile[] = [];
		const changed: string[] = [];
		for (const path of candidates) {
			if (this.isExcluded(path)) continue;
			const bytes = sizeOf(join(this.place.workTree, path));
			if (bytes !== undefined && bytes > this.maxFileBytes) skipped.push({ path, bytes });
			else changed.push(path);
		}
		// Only what the one scan above found is staged: a second scan of the workspace would double the time.
		if (changed.length > 0) await this.stage(changed);
		if (skipped.length > 0) {
			// A file that grew past the limit is out of the tree (its old copy must not come back on a restore).
			await runGit(this.place, ["update-index", "--force-remove", "-z", "--stdin"], {
				input: nulInput(skipped.map((s) => s.path)),
			});
		}
		const tree = (await runGit(this.place, ["write-tree"])).trim();
		return { tree, skipped };
	}

	/**
	 * Stages exactly `paths` (new, changed or deleted files) by name: git's plumbing takes the list
	 * as it is, where pathspecs would be matched against every file (slow for thousands of paths).
	 * A nested repository's folder is passed over by git (its files are its own repository's).
	 */
	private async stage(paths: readonly string[]): Promise<void> {
		const gone: string[] = [];
		const present: string[] = [];
		for (const path of paths) (isFileLike(join(this.place.workTree, path)) ? present : gone).push(path);
		// A path that is gone or is now a folder leaves the index first; `--replace` then lets a file take
		// the place of a folder's entries (or a folder's file the place of a file): otherwise git refuses
		// "appears as both a file and as a directory" and every later snapshot fails (docs/checkpoints.md).
		if (gone.length > 0) {
			await runGit(this.place, ["update-index", "--force-remove", "-z", "--stdin"], { input: nulInput(gone) });
		}
		if (present.length > 0) {
			await runGit(this.place, ["update-index", "--add", "--replace", "-z", "--stdin"], {
				input: nulInput(present),
			});
		}
	}

	async commit(tree: string, parent: string | undefined, message: string): Promise<string> {
		const args = ["commit-tree", tree, ...(parent === undefined ? [] : ["-p", parent]), "-F", "-"];
		return (await runGit(this.place, args, { input: message })).trim();
	}

	async setRef(ref: string, sha: string): Promise<void> {
		await runGit(this.place, ["update-ref", ref, sha]);
	}

	/** Refs under `prefix` with their object and (for commits) their message's first line. */
	async refs(prefix: string): Promise<{ ref: string; sha: string; subject: string }[]> {
		await this.init();
		const text = await runGit(this.place, [
			"for-each-ref",
			"--format=%(refname)%00%(objectname)%00%(contents:subject)",
			prefix,
		]);
		return text
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => {
				const [ref = "", sha = "", subject = ""] = line.split("\0");
				return { ref, sha, subject };
			});
	}

	/** What changes going from tree `from` to tree `to`, renames as a delete and an add. */
	async changes(from: string, to: string): Promise<TreeChange[]> {
		const fields = nulList(
			await runGit(this.place, ["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]),
		);
		const changes: TreeChange[] = [];
		for (let i = 0; i + 1 < fields.length; i += 2) {
			const status = (fields[i] as string).charAt(0);
			const path = fields[i + 1] as string;
			changes.push({ status: status === "A" || status === "D" ? status : "M", path });
		}
		return changes;
	}

	/** The unified diff from tree `from` to tree `to`. */
	async diff(from: string, to: string): Promise<string> {
		return runGit(this.place, [
			"diff-tree",
			"-p",
			"-r",
			"--no-renames",
			"--no-color",
			"--full-index",
			"--binary",
			from,
			to,
		]);
	}

	/** Writes `paths` as tree `source` holds them into the workspace (by name, through an index of its own). */
	async checkout(source: string, paths: readonly string[]): Promise<void> {
		if (paths.length === 0) return;
		this.checkWorkTree();
		await this.withIndex(this.place.workTree, async (place) => {
			await runGit(place, ["read-tree", source]);
			await runGit(place, ["checkout-index", "-f", "-z", "--stdin"], { input: nulInput(paths) });
		});
	}

	/**
	 * Those of `paths` that the ignore rules of tree `tree` leave out: its own `.gitignore` files (as
	 * the tree holds them, whatever the workspace's say now) and the rules read from outside the
	 * workspace. A restore to `tree` leaves such a path alone though `tree` lacks it (docs/checkpoints.md).
	 */
	async ignoredBy(tree: string, paths: readonly string[]): Promise<Set<string>> {
		if (paths.length === 0) return new Set();
		await this.init();
		const dir = mkdtempSync(join(tmpdir(), "omniloop-rules-"));
		try {
			let ignored: string[] = [];
			await this.withIndex(dir, async (place) => {
				await runGit(place, ["read-tree", tree]);
				const rules = nulList(await runGit(place, ["ls-files", "-z"])).filter(
					(path) => path === ".gitignore" || path.endsWith("/.gitignore"),
				);
				if (rules.length > 0)
					await runGit(place, ["checkout-index", "-f", "-z", "--stdin"], { input: nulInput(rules) });
				const out = await runGit(place, [...this.excludes, "check-ignore", "--no-index", "-z", "--stdin"], {
					input: nulInput(paths),
					okCodes: [1],
				});
				ignored = nulList(out);
			});
			return new Set(ignored);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/** Every folder tree `tree` holds (a folder with a file somewhere under it). */
	async folders(tree: string): Promise<Set<string>> {
		return new Set(nulList(await runGit(this.place, ["ls-tree", "-r", "-d", "-z", "--name-only", tree])));
	}

	/** Writes every file of `tree` into `dir` (a new folder). */
	async materialize(tree: string, dir: string): Promise<void> {
		mkdirSync(dir, { recursive: true });
		await this.withIndex(dir, async (place) => {
			await runGit(place, ["read-tree", tree]);
			await runGit(place, ["checkout-index", "-a", "-f"]);
		});
	}

	/**
	 * What `materialize(tree, …)` does not write of the workspace's files as they are now (a fork's
	 * new folder): the paths its ignore rules leave out (a folder ignored whole as one `dir/`), and
	 * nested repositories (`dir/`: git never takes another repository's files). The workspace's own
	 * `.git` is neither listed nor copied.
	 */
	async leftOutOf(tree: string): Promise<{ ignored: string[]; nested: string[] }> {
		this.checkWorkTree();
		await this.init();
		let ignored: string[] = [];
		let others: string[] = [];
		await this.withIndex(this.place.workTree, async (place) => {
			await runGit(place, ["read-tree", tree]);
			others = nulList(await runGit(place, [...this.excludes, "ls-files", "-z", "--others", "--exclude-standard"]));
			ignored = nulList(
				await runGit(place, [
					...this.excludes,
					"ls-files",
					"-z",
					"--others",
					"--ignored",
					"--exclude-standard",
					"--directory",
				]),
			);
		});
		const ours = (path: string) => !this.isExcluded(path.endsWith("/") ? path.slice(0, -1) : path);
		return { ignored: ignored.filter(ours), nested: others.filter((path) => path.endsWith("/") && ours(path)) };
	}

	/** Runs `work` on `workTree` with a throwaway index (the Session's own keeps what it has). */
	private async withIndex(workTree: string, work: (place: GitPlace) => Promise<void>): Promise<void> {
		const indexFile = join(dirname(this.place.indexFile), `scratch-${randomUUID()}`);
		try {
			await work({ gitDir: this.place.gitDir, workTree, indexFile });
		} finally {
			rmSync(indexFile, { force: true });
		}
	}

	/**
	 * Refuses a workspace that no longer resolves to the real path the Session was made in (swapped
	 * for a link, moved): git would read, and a restore write, wherever it now leads.
	 */
	private checkWorkTree(): void {
		const { workTree } = this.place;
		const now = existsSync(workTree) ? realpathSync(workTree) : workTree;
		if (now !== workTree) {
			throw new CheckpointError(
				`the workspace ${workTree} now leads to ${now} (it was replaced by a link or moved): checkpoints stay with the folder the Session was made in`,
			);
		}
	}

	private isExcluded(path: string): boolean {
		return this.excluded.some((ex) => path === ex || path.startsWith(`${ex}${sep}`) || path.startsWith(`${ex}/`));
	}
}

function nulInput(paths: readonly string[]): string {
	return `${paths.join("\0")}\0`;
}

/** A file or a symbolic link (git stores both as blobs); not a folder, not missing. */
function isFileLike(path: string): boolean {
	try {
		return !lstatSync(path).isDirectory();
	} catch {
		return false;
	}
}

function sizeOf(path: string): number | undefined {
	try {
		const stat = lstatSync(path);
		return stat.isFile() ? stat.size : undefined;
	} catch {
		return undefined;
	}
}
