import type { OmniMessage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { RecentWindow } from "./recent-window.js";

const text = (seq: number): OmniMessage => ({ ...makeMessage("assistant_text", { text: `t${seq}` }), seq });
const partial = (seq: number): OmniMessage => ({ ...makeMessage("partial_text", { delta: `d${seq}` }), seq });

describe("RecentWindow", () => {
	it("returns the messages after a seq, and knows its oldest seq", () => {
		const window = new RecentWindow();
		expect(window.firstSeq).toBeUndefined();
		for (const seq of [4, 5, 6, 7]) window.add(seq % 2 ? partial(seq) : text(seq));
		expect(window.firstSeq).toBe(4);
		expect(window.after(5).map((m) => m.seq)).toEqual([6, 7]);
		expect(window.after(0).map((m) => m.seq)).toEqual([4, 5, 6, 7]);
		expect(window.after(7)).toEqual([]);
	});

	it("keeps the running Task whole, drops a finished Task's partials, and trims older messages at the next Task", () => {
		const window = new RecentWindow(2);
		window.beginTask();
		for (let seq = 1; seq <= 6; seq++) window.add(seq % 2 ? partial(seq) : text(seq));
		expect(window.after(0)).toHaveLength(6);
		window.endTask();
		expect(window.after(0).map((m) => m.seq)).toEqual([2, 4, 6]);
		window.beginTask();
		expect(window.after(0).map((m) => m.seq)).toEqual([4, 6]);
	});
});
