import { existsSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import type { DeniedPath } from "./bubblewrap.js";
import { isInside } from "./bubblewrap.js";

/**
 * Where hosts keep Unix sockets a command could connect() to through a read-only mount: the
 * Docker daemon (/var/run/docker.sock), the D-Bus session bus and the user's services
 * ($XDG_RUNTIME_DIR), ssh-agent and X11 (/tmp), other servers' sockets in temp folders.
 */
function socketFolderCandidates(env: NodeJS.ProcessEnv): string[] {
	const candidates = ["/tmp", "/var/tmp", tmpdir(), "/run", "/var/run", "/tmp/.X11-unix"];
	if (env.XDG_RUNTIME_DIR) candidates.push(env.XDG_RUNTIME_DIR);
	return candidates;
}

/**
 * The socket folders to cover with an empty folder, as real paths (/var/run is often a link to
 * /run): those that exist, none inside another (covering the outer hides it), none the
 * workspace shows anyway (a folder inside or equal to it).
 */
export function socketFolders(env: NodeJS.ProcessEnv, workspaceDir: string): string[] {
	const real = new Set<string>();
	for (const candidate of socketFolderCandidates(env)) {
		const path = realPathOrUndefined(candidate);
		if (path !== undefined && path !== "/" && statSync(path).isDirectory()) real.add(path);
	}
	const all = [...real].filter((dir) => !isInside(dir, workspaceDir));
	return all.filter((dir) => !all.some((other) => other !== dir && isInside(dir, other)));
}

/** The denied paths that exist now, as real paths, without the home (hidden on its own). */
export function existingDenied(paths: readonly string[], home: string | undefined): DeniedPath[] {
	const found: DeniedPath[] = [];
	for (const given of paths) {
		const path = realPathOrUndefined(given);
		if (path === undefined || path === home || path === "/") continue;
		found.push({ path, kind: statSync(path).isDirectory() ? "folder" : "file" });
	}
	return found;
}

/**
 * The read-only files a command could otherwise change: existing regular files inside the
 * workspace, as real paths (a link's target: the bind lands there; the link itself is its
 * reader's to distrust, see readConfigText).
 */
export function readOnlyFiles(paths: readonly string[], workspaceDir: string): string[] {
	const found = new Set<string>();
	for (const given of paths) {
		const path = realPathOrUndefined(given);
		if (path === undefined || !isInside(path, workspaceDir) || path === workspaceDir) continue;
		if (statSync(path).isFile()) found.add(path);
	}
	return [...found];
}

/**
 * The folders strictly between the workspace and each of `paths` (real paths inside it), existing
 * ones, outermost first, each once.
 */
export function foldersOnTheWay(paths: readonly string[], workspaceDir: string): string[] {
	const folders = new Set<string>();
	for (const path of paths) {
		if (!isInside(path, workspaceDir) || path === workspaceDir) continue;
		const parts = relative(workspaceDir, path).split(sep);
		for (let depth = 1; depth < parts.length; depth++) {
			const folder = join(workspaceDir, ...parts.slice(0, depth));
			if (existsSync(folder) && statSync(folder).isDirectory()) folders.add(folder);
		}
	}
	return [...folders].sort((a, b) => a.split(sep).length - b.split(sep).length);
}

function realPathOrUndefined(path: string): string | undefined {
	if (!existsSync(path)) return undefined;
	try {
		return realpathSync(path);
	} catch {
		return undefined;
	}
}
