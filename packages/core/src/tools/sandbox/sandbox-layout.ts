import { existsSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
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

function realPathOrUndefined(path: string): string | undefined {
	if (!existsSync(path)) return undefined;
	try {
		return realpathSync(path);
	} catch {
		return undefined;
	}
}
