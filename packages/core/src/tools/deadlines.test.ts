import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadlines } from "./deadlines.js";

describe("Deadlines", () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it("a call added after every earlier one ended still fires at its own deadline, not before", () => {
		const deadlines = new Deadlines();
		const fired: string[] = [];
		const cancelFirst = deadlines.add(performance.now() + 1000, () => fired.push("first"));
		vi.advanceTimersByTime(400);
		cancelFirst();
		const secondAt = performance.now() + 1000;
		deadlines.add(secondAt, () => fired.push("second"));
		// The timer kept from the first call comes due at 1000: it must re-arm, not fire the second.
		vi.advanceTimersByTime(600);
		expect(fired).toEqual([]);
		vi.advanceTimersByTime(secondAt - performance.now() - 1);
		expect(fired).toEqual([]);
		vi.advanceTimersByTime(1);
		expect(fired).toEqual(["second"]);
	});

	it("a deadline earlier than the one the timer is due for fires at its own time, and the later one still fires", () => {
		const deadlines = new Deadlines();
		const fired: string[] = [];
		const start = performance.now();
		deadlines.add(start + 1000, () => fired.push("late"));
		deadlines.add(start + 300, () => fired.push("early"));
		vi.advanceTimersByTime(299);
		expect(fired).toEqual([]);
		vi.advanceTimersByTime(1);
		expect(fired).toEqual(["early"]);
		vi.advanceTimersByTime(700);
		expect(fired).toEqual(["early", "late"]);
	});

	it("a cancelled call never fires, and calls due together fire in order", () => {
		const deadlines = new Deadlines();
		const fired: number[] = [];
		const at = performance.now() + 500;
		deadlines.add(at, () => fired.push(1));
		const cancel = deadlines.add(at, () => fired.push(2));
		deadlines.add(at, () => fired.push(3));
		cancel();
		vi.advanceTimersByTime(500);
		expect(fired).toEqual([1, 3]);
	});

	it("no timer holds the process open once no call runs", () => {
		vi.useRealTimers();
		const deadlines = new Deadlines();
		const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
		const before = timers();
		const cancel = deadlines.add(performance.now() + 60_000, () => {});
		expect(timers()).toBe(before + 1);
		cancel();
		expect(timers()).toBe(before);
	});
});
