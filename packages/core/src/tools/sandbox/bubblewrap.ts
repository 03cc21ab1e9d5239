import type { SandboxMode } from "./sandbox-mode.js";

/** The folders a sandboxed command is given; real paths (bubblewrap mounts by path). */
export interface SandboxLayout {
	mode: Exclude<SandboxMode, "off">;
	workspaceDir: string;
	/** The Session's temp dir: writable in every sandboxed mode, the command's $TMPDIR. */
	tempDir: string;
	/** The omniloop home (Traces, the server's token, the database): neither readable nor listable. */
	home: string | undefined;
	/**
	 * Folders where the host keeps its Unix sockets (/tmp, /run, $XDG_RUNTIME_DIR…, see
	 * socketFolders): each is replaced by an empty read-only folder, since a read-only mount does
	 * not stop connect() on a socket file in it (docs/sandbox.md).
	 */
	covered: readonly string[];
	/** The host's other secrets (a SQLite store outside the home), existing ones, by kind. */
	denied: readonly DeniedPath[];
	/** An empty file nobody may open, bound over each denied file (a folder gets an empty tmpfs). */
	placeholder: string;
	/**
	 * Existing files inside a writable workspace that commands may read but not change, replace or
	 * remove (the project's omniloop.yaml), each bound read-only onto itself. One that does not
	 * exist can be created: its reader ignores a file made after it first looked (readConfigText).
	 */
	readOnly: readonly string[];
	/**
	 * Folders inside a writable workspace on the way to the home, a denied path or a read-only file,
	 * outermost first, each bound onto itself: a mount point cannot be renamed, so a command cannot
	 * move one aside (`mv .config x`) and find what was hidden under its old name uncovered.
	 */
	pinned: readonly string[];
}

export interface DeniedPath {
	path: string;
	kind: "file" | "folder";
}

/**
 * Isolation every sandboxed command gets: no network (a namespace with only its own loopback, so
 * even the host's 127.0.0.1 is out of reach), its own process tree (it can neither see nor signal
 * the host's processes, nor read their environment from /proc), its own host name, no
 * capabilities (so root inside still meets file modes, which hide the home), and it dies with its
 * parent.
 */
export const ISOLATION_ARGS: readonly string[] = [
	"--unshare-net",
	"--unshare-pid",
	"--unshare-ipc",
	"--unshare-uts",
	"--die-with-parent",
	"--cap-drop",
	"ALL",
];

/**
 * A fresh /proc, with the kernel's settings read-only: most sysctls are checked by file mode
 * alone, so a command run by root — capabilities dropped or not — could otherwise write them
 * (`kernel.core_pattern` runs a program as the host's root at the next crash of any process).
 */
const PROC_ARGS: readonly string[] = [
	"--proc",
	"/proc",
	"--ro-bind-try",
	"/proc/sys",
	"/proc/sys",
	"--ro-bind-try",
	"/proc/sysrq-trigger",
	"/proc/sysrq-trigger",
];

/**
 * bubblewrap's arguments for `argv` in `cwd`: the whole file system read-only, a fresh /dev and
 * /proc, the socket folders emptied, the temp dir (and in workspace-write the workspace) writable,
 * the home and the denied paths replaced by something empty nobody may open. Later mounts go over
 * earlier ones, so the home is hidden even inside a workspace, unless the workspace is inside the
 * home (then only its own files show); the covered folders are made read-only last, once the
 * folders bound inside them have their mount points.
 */
export function bubblewrapArgs(layout: SandboxLayout, cwd: string, argv: readonly string[]): string[] {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", ...PROC_ARGS];
	for (const dir of layout.covered) args.push("--tmpfs", dir);
	args.push("--bind", layout.tempDir, layout.tempDir);
	const workspaceInHome = layout.home !== undefined && isInside(layout.workspaceDir, layout.home);
	const workspace = layout.mode === "workspace-write" ? "--bind" : "--ro-bind";
	// Pins and read-only files go over the workspace, and before the home and the denied paths
	// under them: a bind made later would show the host's folder without what was mounted inside.
	const bindWorkspace = () => {
		args.push(workspace, layout.workspaceDir, layout.workspaceDir);
		for (const dir of layout.pinned) args.push("--bind", dir, dir);
		for (const file of layout.readOnly) args.push("--ro-bind", file, file);
	};
	if (!workspaceInHome) bindWorkspace();
	if (layout.home !== undefined) {
		args.push("--tmpfs", layout.home);
		// A folder nobody may open answers "Permission denied", which names the refusal; an empty one
		// would say "No such file", which reads like a wrong path. Not when the workspace sits inside.
		if (workspaceInHome) bindWorkspace();
		else args.push("--chmod", "0000", layout.home);
	}
	for (const denied of layout.denied) {
		if (denied.kind === "folder") args.push("--tmpfs", denied.path, "--chmod", "0000", denied.path);
		else args.push("--ro-bind", layout.placeholder, denied.path);
	}
	for (const dir of layout.covered) args.push("--remount-ro", dir);
	args.push(...ISOLATION_ARGS, "--chdir", cwd, "--", ...argv);
	return args;
}

export function isInside(path: string, dir: string): boolean {
	return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
