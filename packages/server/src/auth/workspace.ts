import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { HttpError } from "../errors.js";

/**
 * `workspaceDir` resolved against the first root and confined to the roots: symlinks are followed
 * before the check (a link inside a root that points outside it is outside), and a root counts as
 * inside itself. Missing folders, files and paths outside every root are `invalid_body` naming the field.
 * The roots are real paths already (ServerState.workspaceRoots, resolved once at start).
 */
export function confineWorkspace(realRoots: readonly string[], requested: string | undefined): string {
	const first = realRoots[0];
	if (first === undefined) throw new HttpError("invalid_state", "the server has no workspace root");
	const wanted = requested === undefined ? first : resolve(first, requested);
	let real: string;
	try {
		real = realpathSync(wanted);
	} catch {
		throw new HttpError("invalid_body", `workspaceDir: ${wanted} does not exist`);
	}
	if (!realRoots.some((root) => isInside(root, real))) {
		throw new HttpError(
			"invalid_body",
			`workspaceDir: ${wanted} is outside the workspace roots (${realRoots.join(", ")})`,
		);
	}
	if (!statSync(real).isDirectory())
		throw new HttpError("invalid_body", `workspaceDir: ${wanted} is a file, not a folder`);
	return real;
}

/**
 * Whether a Session's recorded workspace lies inside one of the (real) roots, its symlinks followed
 * as far as it still exists: the test that decides which Sessions of the home this server serves.
 */
export function servesWorkspace(realRoots: readonly string[]): (workspaceDir: string) => boolean {
	return (workspaceDir) => {
		let real = resolve(workspaceDir);
		try {
			real = realpathSync(real);
		} catch {
			// A folder gone since: judged by the path it had.
		}
		return realRoots.some((root) => isInside(root, real));
	};
}

export function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
