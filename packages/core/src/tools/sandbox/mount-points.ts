import { lstatSync, unlinkSync } from "node:fs";

/**
 * The empty files bubblewrap makes in the person's workspace to mount over a read-only file that
 * does not exist yet (the project's omniloop.yaml before anyone wrote one). Each is removed once
 * the last command that mounted it has exited — if it is still empty: a person who wrote the
 * file meanwhile keeps it. Counted per process, since Sessions of one host share a workspace.
 */
export const MountPoints = {
	holders: new Map<string, number>(),

	/** Counts the commands about to mount `paths`; the function returned ends this command's hold. */
	hold(paths: readonly string[]): (() => void) | undefined {
		if (paths.length === 0) return undefined;
		for (const path of paths) this.holders.set(path, (this.holders.get(path) ?? 0) + 1);
		let released = false;
		return () => {
			if (released) return;
			released = true;
			for (const path of paths) this.release(path);
		};
	},

	release(path: string): void {
		const left = (this.holders.get(path) ?? 1) - 1;
		if (left > 0) {
			this.holders.set(path, left);
			return;
		}
		this.holders.delete(path);
		try {
			const stats = lstatSync(path);
			if (stats.isFile() && stats.size === 0) unlinkSync(path);
		} catch {
			// Gone already, or not ours to remove: either way nothing is left behind by us.
		}
	},
};
