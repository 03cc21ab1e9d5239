/**
 * Does process `pid` run (on this machine, in this PID namespace)? One that runs as another user
 * counts (EPERM): a record or folder it owns is not a dead process's leftover.
 */
export function processRuns(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
