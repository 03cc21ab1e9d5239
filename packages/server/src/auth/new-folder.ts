import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { HttpError } from "../errors.js";
import { isInside } from "./workspace.js";

/** A folder made for a request (a fork's workspace), and how to take it back if the request fails. */
export interface NewFolder {
	/** Its real path (symbolic links followed). */
	path: string;
	/** Removes what was created for it (nothing when it existed already). */
	undo(): void;
}

/**
 * `requested` (resolved against the first root) made as a folder that lies inside the roots with
 * every symbolic link followed: the deepest part that exists is checked before anything is made,
 * and the made folder's real path after (a link anywhere on the way that points outside is
 * outside). Outside is 403 `forbidden`, and what was made is removed. See docs/checkpoints.md (fork).
 * The roots are real paths already (ServerState.workspaceRoots, resolved once at start).
 */
export function newFolderInRoots(realRoots: readonly string[], requested: string): NewFolder {
	const first = realRoots[0];
	if (first === undefined) throw new HttpError("invalid_state", "the server has no workspace root");
	const wanted = resolve(first, requested);
	const outside = () =>
		new HttpError("forbidden", `workspaceDir: ${wanted} is outside the workspace roots (${realRoots.join(", ")})`);
	let existing = wanted;
	while (!existsSync(existing)) existing = dirname(existing);
	if (!realRoots.some((root) => isInside(root, realpathSync(existing)))) throw outside();
	let created: string | undefined;
	try {
		created = mkdirSync(wanted, { recursive: true });
	} catch (error) {
		throw new HttpError("invalid_body", `workspaceDir: ${wanted} cannot be made a folder (${String(error)})`);
	}
	const undo = () => {
		if (created !== undefined) rmSync(created, { recursive: true, force: true });
	};
	const real = realpathSync(wanted);
	if (!realRoots.some((root) => isInside(root, real))) {
		undo();
		throw outside();
	}
	return { path: real, undo };
}
