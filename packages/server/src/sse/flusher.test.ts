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
});
