import { describe, expect, it } from "vitest";
import { type Flushable, Flusher } from "./flusher.js";

/** A viewer's stand-in: counts its flushes and what they wrote. */
function target() {
	const writes: string[][] = [];
	let queued: string[] = [];
	return {
		writes,
		queue: (frame: string) => queued.push(frame),
		flushable: {
			flush() {
				writes.push(queued);
				queued = [];
			},
		} satisfies Flushable,
	};
}

describe("Flusher", () => {
	it("flushes what one event queued, across the microtasks it started, once per target", async () => {
		const flusher = new Flusher();
		const a = target();
		const b = target();
		await new Promise<void>((resolve) =>
			setImmediate(async () => {
				for (let i = 0; i < 3; i++) {
					a.queue(`a${i}`);
					flusher.schedule(a.flushable);
					b.queue(`b${i}`);
					flusher.schedule(b.flushable);
					await Promise.resolve();
				}
				resolve();
			}),
		);
		await new Promise((resolve) => setImmediate(resolve));
		expect(a.writes).toEqual([["a0", "a1", "a2"]]);
		expect(b.writes).toEqual([["b0", "b1", "b2"]]);
	});

	it("writes before the event loop moves on to its next callback: a frame waits for no other event", async () => {
		const flusher = new Flusher();
		const a = target();
		// Queued before the frame: were the flush itself a later callback of the loop, this one would run first.
		const seenByNextCallback = new Promise<number>((resolve) => setImmediate(() => resolve(a.writes.length)));
		a.queue("frame");
		flusher.schedule(a.flushable);
		expect(await seenByNextCallback).toBe(1);
	});

	it("a frame queued while a batch is flushed, for a target that batch already flushed, is flushed again before the loop moves on", async () => {
		const flusher = new Flusher();
		const a = target();
		const queuesAgain = {
			flush() {
				a.queue("later");
				flusher.schedule(a.flushable);
			},
		};
		a.queue("first");
		flusher.schedule(a.flushable);
		flusher.schedule(queuesAgain);
		await new Promise((resolve) => setImmediate(resolve));
		expect(a.writes).toEqual([["first"], ["later"]]);
	});

	it("a flush that throws leaves the targets after it queued: they are flushed in a run of their own", async () => {
		const flusher = new Flusher();
		const a = target();
		const b = target();
		const throwing = {
			flush() {
				throw new Error("socket gone");
			},
		};
		let caught: (error: unknown) => void = () => {};
		const thrown = new Promise<unknown>((resolve) => {
			caught = resolve;
		});
		process.once("uncaughtException", caught);
		try {
			a.queue("a");
			flusher.schedule(a.flushable);
			flusher.schedule(throwing);
			b.queue("b");
			flusher.schedule(b.flushable);
			expect(((await thrown) as Error).message).toBe("socket gone");
		} finally {
			process.removeListener("uncaughtException", caught);
		}
		// Waited for, not timed: after a throw, node runs the ticks left at its next callback.
		await expect.poll(() => b.writes).toEqual([["b"]]);
		expect(a.writes).toEqual([["a"]]);
		// Each target once more: the queue holds nothing of the run that threw.
		flusher.schedule(a.flushable);
		flusher.schedule(b.flushable);
		await expect.poll(() => [a.writes.length, b.writes.length]).toEqual([2, 2]);
	});
});
