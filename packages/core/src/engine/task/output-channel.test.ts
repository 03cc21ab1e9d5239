import { describe, expect, it } from "vitest";
import { OutputChannel } from "./output-channel.js";

describe("the output channel", () => {
	it("hands items to readers in order, readers that called next() early included", async () => {
		const channel = new OutputChannel<number>();
		const first = channel.next();
		const second = channel.next();
		channel.push(1);
		channel.push(2);
		channel.push(3);
		expect(await first).toEqual({ value: 1, done: false });
		expect(await second).toEqual({ value: 2, done: false });
		expect(await channel.next()).toEqual({ value: 3, done: false });
		const waiting = channel.next();
		channel.close();
		expect(await waiting).toEqual({ value: undefined, done: true });
		expect(channel.push(4)).toBe(3);
	});

	it("says when the reader has taken an item", async () => {
		const channel = new OutputChannel<string>();
		const position = channel.push("a");
		let taken = false;
		const until = channel.untilTaken(position).then(() => {
			taken = true;
		});
		await Promise.resolve();
		expect(taken).toBe(false);
		await channel.next();
		await until;
		expect(taken).toBe(true);
	});
});
