/**
 * Leaving the process: what must be released (the terminal's raw mode, the Trace file) is
 * released on every way out, including a second Ctrl-C that exits at once.
 */
export class Shutdown {
	private readonly cleanups: (() => void)[] = [];

	/** `cleanup` runs once when the process exits through `exit`, newest first. It must be synchronous. */
	add(cleanup: () => void): void {
		this.cleanups.push(cleanup);
	}

	runCleanups(): void {
		for (const cleanup of this.cleanups.splice(0).reverse()) {
			try {
				cleanup();
			} catch {
				// Leaving anyway: one failed release must not keep the others from running.
			}
		}
	}

	exit(code: number): never {
		this.runCleanups();
		process.exit(code);
	}
}
