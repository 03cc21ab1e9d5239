import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelFailure } from "./failure.js";
import { requestTimer, StreamWatchdog } from "./stream-watchdog.js";

describe("the stream watchdog", () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it("with an idle limit shorter than the first-byte limit: no first byte is a timeout at exactly its limit, and checks are few", async () => {
		const spy = vi.spyOn(globalThis, "setTimeout");
		const failures: ModelFailure[] = [];
		const watchdog = new StreamWatchdog({ firstByteMs: 1000, idleMs: 100, requestMs: 60_000 }, (f) => failures.push(f));
		await vi.advanceTimersByTimeAsync(999);
		expect(failures).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(failures).toEqual([{ class: "timeout", message: "no first byte within 1000 ms" }]);
		expect(spy.mock.calls.length).toBeLessThanOrEqual(11);
		watchdog.stop();
		spy.mockRestore();
	});

	it("a stall after the first event is found at exactly the idle limit after the last event", async () => {
		const failures: ModelFailure[] = [];
		const watchdog = new StreamWatchdog({ firstByteMs: 1000, idleMs: 100, requestMs: 60_000 }, (f) => failures.push(f));
		await vi.advanceTimersByTimeAsync(250);
		watchdog.event();
		await vi.advanceTimersByTimeAsync(99);
		expect(failures).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(failures).toEqual([{ class: "timeout", message: "the stream stalled: no event for 100 ms" }]);
		watchdog.stop();
	});

	it("events that keep coming never time out, with one timer per check rather than per event", async () => {
		const spy = vi.spyOn(globalThis, "setTimeout");
		const failures: ModelFailure[] = [];
		const watchdog = new StreamWatchdog({ firstByteMs: 1000, idleMs: 100, requestMs: 60_000 }, (f) => failures.push(f));
		for (let i = 0; i < 100; i++) {
			await vi.advanceTimersByTimeAsync(10);
			watchdog.event();
		}
		expect(failures).toEqual([]);
		expect(spy.mock.calls.length).toBeLessThanOrEqual(12);
		watchdog.stop();
		expect(vi.getTimerCount()).toBe(0);
		spy.mockRestore();
	});

	it("requests one after another on a shared timer: the next one's first-byte limit holds though the last one's check was due later", async () => {
		const timer = requestTimer();
		const failures: ModelFailure[] = [];
		const limits = { firstByteMs: 100, idleMs: 1000, requestMs: 60_000 };
		const first = new StreamWatchdog(limits, (f) => failures.push(f), timer);
		await vi.advanceTimersByTimeAsync(10);
		first.event();
		// The check at 100 finds the stream alive and re-arms for the idle limit (1010).
		await vi.advanceTimersByTimeAsync(190);
		first.stop();
		const second = new StreamWatchdog(limits, (f) => failures.push(f), timer);
		await vi.advanceTimersByTimeAsync(99);
		expect(failures).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(failures).toEqual([{ class: "timeout", message: "no first byte within 100 ms" }]);
		second.stop();
	});
});
