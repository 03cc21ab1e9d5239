/**
 * Runs work for one key at a time, in arrival order. A workflow's decisions, resume, cancel and
 * step changes read and then write its row: one at a time, no write is lost between two awaits.
 * Work under the lock must never wait for the Task's own progress (that could wait for the lock).
 */
export class KeyedLock {
	private readonly tails = new Map<string, Promise<unknown>>();

	run<T>(key: string, work: () => Promise<T>): Promise<T> {
		const previous = this.tails.get(key) ?? Promise.resolve();
		const next = previous.then(work, work);
		const tail = next.catch(() => {});
		this.tails.set(key, tail);
		void tail.then(() => {
			if (this.tails.get(key) === tail) this.tails.delete(key);
		});
		return next;
	}
}
