/**
 * A turn's decisions, made one at a time in call order. A decision that can be made at once (the
 * policy's) is made at once when none waits before it: most calls cost no promise. One that
 * waits (on a person, an announcement) holds the ones after it until it is made.
 */
export class DecisionQueue {
	/** The decisions that wait, as one chain; undefined when none does. */
	private waiting: Promise<void> | undefined;

	/** @param fail a decision that threw: the batch's own machinery broke. */
	constructor(private readonly fail: (error: unknown) => void) {}

	/** Makes `decide` now if no decision waits, else after the ones that do. */
	queue(decide: () => Promise<void> | void): void {
		const before = this.waiting;
		let waits: Promise<void> | void;
		if (before === undefined) {
			try {
				waits = decide();
			} catch (error) {
				this.fail(error);
				return;
			}
			if (waits === undefined) return;
		} else waits = before.then(decide);
		const tail: Promise<void> = waits
			.catch((error: unknown) => this.fail(error))
			.then(() => {
				if (this.waiting === tail) this.waiting = undefined;
			});
		this.waiting = tail;
	}
}
