import { spawn } from "node:child_process";

/**
 * What went wrong with checkpoints. Hosts branch on `problem`: `not_found` (no such checkpoint),
 * `nothing_to_undo`, `disabled` (turned off, or a subagent's Session), `no_checkpoint` (the files at
 * a fork's inherited message cannot be known: its parent's Trace is gone), `git` (a git command
 * failed: its arguments and what git said are in the message).
 */
export type CheckpointProblem = "not_found" | "nothing_to_undo" | "disabled" | "no_checkpoint" | "git";

/** A file checkpoint could not be made, read or restored; `problem` says which way. */
export class CheckpointError extends Error {
	override readonly name = "CheckpointError";
	constructor(
		message: string,
		readonly problem: CheckpointProblem = "git",
	) {
		super(message);
	}
}

export interface GitPlace {
	/** The shadow store: `<home>/checkpoints.git`. */
	gitDir: string;
	/** The workspace whose files are checkpointed. */
	workTree: string;
	/** The Session's own index in the shared store. */
	indexFile: string;
}

/**
 * Only what the shadow store needs reaches git: no GIT_* of the host (a GIT_DIR there would point
 * git at the workspace's own repository), no system or global config (hooks, filters, attributes
 * of the person's own setup play no part in a snapshot).
 */
function gitEnv(place: GitPlace, run: GitRun): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
	return {
		...env,
		...(run.storeOnly === true
			? {}
			: { GIT_DIR: place.gitDir, GIT_WORK_TREE: place.workTree, GIT_INDEX_FILE: place.indexFile }),
		GIT_CONFIG_NOSYSTEM: "1",
		GIT_CONFIG_GLOBAL: "/dev/null",
		GIT_AUTHOR_NAME: "omniloop",
		GIT_AUTHOR_EMAIL: "checkpoints@omniloop.invalid",
		GIT_COMMITTER_NAME: "omniloop",
		GIT_COMMITTER_EMAIL: "checkpoints@omniloop.invalid",
		GIT_TERMINAL_PROMPT: "0",
		...(run.literal === true ? { GIT_LITERAL_PATHSPECS: "1" } : {}),
	};
}

const SETTINGS = [
	"-c",
	"core.autocrlf=false",
	"-c",
	"core.safecrlf=false",
	"-c",
	"core.quotepath=off",
	"-c",
	"core.untrackedCache=true",
	"-c",
	"core.fsmonitor=false",
	"-c",
	"core.hooksPath=/dev/null",
	"-c",
	"advice.addEmbeddedRepo=false",
	"-c",
	"gc.auto=0",
];

export interface GitRun {
	/** Written to git's stdin (e.g. NUL-separated paths for --pathspec-from-file=-). */
	input?: string;
	/** Paths are taken as they are, with no pathspec magic (file names from the workspace). */
	literal?: boolean;
	/** Exit codes other than 0 that are an answer, not a failure (`git diff --quiet`). */
	okCodes?: readonly number[];
	/** The store itself (`git init`): no work tree, no index. */
	storeOnly?: boolean;
}

/** Runs git on the shadow store and returns its stdout; a failure is a CheckpointError with git's stderr. */
export function runGit(place: GitPlace, args: readonly string[], run: GitRun = {}): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn("git", [...SETTINGS, ...args], {
			cwd: place.workTree,
			env: gitEnv(place, run),
			stdio: ["pipe", "pipe", "pipe"],
		});
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
		child.on("error", (error) => reject(new CheckpointError(`git ${args[0]}: ${error.message} (is git installed?)`)));
		child.on("close", (code) => {
			if (code === 0 || (code !== null && run.okCodes?.includes(code))) resolve(Buffer.concat(out).toString("utf8"));
			else {
				const said = Buffer.concat(err).toString("utf8").trim();
				reject(new CheckpointError(`git ${args.join(" ").slice(0, 200)} failed (${code}): ${said}`));
			}
		});
		child.stdin.on("error", () => {});
		child.stdin.end(run.input ?? "");
	});
}

/** NUL-separated output, without the empty last field. */
export function nulList(text: string): string[] {
	return text.split("\0").filter((part) => part !== "");
}
