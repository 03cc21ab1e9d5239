import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { HttpError } from "../errors.js";

/**
 * `workspaceDir` resolved against the first root and confined to the roots: symlinks are followed
 * before the check (a link inside a root that points outside it is outside), and a root counts as
 * inside itself. Missing folders and paths outside every root are `invalid_body` naming the field.
 */
export function confineWorkspace(roots: readonly string[], requested: string | undefined): string {
	const realRoots = roots.map((root) => realpathSync(root));
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
		throw new HttpError("invalid_body", `workspaceDir: ${wanted} is outside the workspace roots (${roots.join(", ")})`);
	}
	return real;
}

function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
