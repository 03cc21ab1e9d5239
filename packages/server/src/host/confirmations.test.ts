import { describe, expect, it } from "vitest";
import type { Store } from "../store/store.js";
import { ConfirmationAnswers } from "./confirmations.js";

/**
 * The store calls ConfirmationAnswers makes, recorded. `insertsWait`: each row's insert lands
 * only when `land()` is called; `standing`: a decision another process recorded first.
 */
function recordingStore(options: { insertsWait?: boolean; standing?: string; failingDecides?: number } = {}) {
	let failures = options.failingDecides ?? 0;
	const calls: string[] = [];
	const decided: [string, string][] = [];
	const waiting: (() => void)[] = [];
	const store = {
		addConfirmation: async (confirmation: { correlationId: string }) => {
			if (options.insertsWait === true) await new Promise<void>((landed) => waiting.push(landed));
			calls.push(`insert ${confirmation.correlationId}`);
		},
		decideConfirmation: async (id: string, decision: string) => {
			if (failures-- > 0) throw new Error("the store is locked");
			calls.push(`decide ${id} ${decision}`);
			decided.push([id, decision]);
			return options.standing ?? decision;
		},
		getConfirmation: async () => undefined,
	} as unknown as Store;
	const land = () => {
		for (const landed of waiting.splice(0)) landed();
	};
	return { store, decided, calls, land };
}

const question = { correlationId: "k1", callId: "c1", name: "write", arguments: "{}", requestedAt: 1 };

describe("a Session's confirmations", () => {
	it("an answer that comes before the engine asks (between confirmation_required and approve) is the one approve gets", async () => {
		const { store, decided } = recordingStore();
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		expect(await confirmations.decide("k1", "allow")).toEqual({ kind: "decided" });
		// What `approve` does: register (idempotent), then wait.
		await confirmations.request(question);
		expect(confirmations.pending()).toEqual([]);
		expect(await confirmations.wait("k1", new AbortController().signal)).toBe("allow");
		expect(decided).toEqual([["k1", "allow"]]);
	});

	it("an answer given while approve waits reaches it; the Task's end interrupts only what is undecided", async () => {
		const { store, decided } = recordingStore();
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		await confirmations.request({ ...question, correlationId: "k2", callId: "c2" });
		await confirmations.request({ ...question, correlationId: "k3", callId: "c3" });
		const answered = confirmations.wait("k1", new AbortController().signal);
		await confirmations.decide("k1", "deny");
		expect(await answered).toBe("deny");
		await confirmations.decide("k2", "allow");
		await confirmations.interruptAll();
		expect(decided).toEqual([
			["k1", "deny"],
			["k2", "allow"],
			["k3", "interrupted"],
		]);
		expect(confirmations.pending()).toEqual([]);
	});

	it("a confirmation interrupted while its row is on its way is decided after the row lands, and a late answer learns it", async () => {
		const { store, calls, land } = recordingStore({ insertsWait: true });
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		const written = confirmations.request(question);
		const task = new AbortController();
		const approved = confirmations.wait("k1", task.signal);
		task.abort();
		expect(await approved).toBe("deny");
		expect(confirmations.pending()).toEqual([]);
		// The store has no row yet (nor ever, if it was fenced out): the answer comes from memory.
		expect(await confirmations.decide("k1", "allow")).toEqual({ kind: "already", decision: "interrupted" });
		land();
		await written;
		await confirmations.interruptAll();
		await new Promise<void>((next) => setImmediate(next));
		expect(calls).toEqual(["insert k1", "decide k1 interrupted"]);
	});

	it("approve called after its Task was aborted gets deny at once", async () => {
		const { store, decided } = recordingStore();
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		expect(await confirmations.wait("k1", AbortSignal.abort())).toBe("deny");
		expect(confirmations.pending()).toEqual([]);
		await new Promise<void>((next) => setImmediate(next));
		expect(decided).toEqual([["k1", "interrupted"]]);
	});

	it("an answer another process recorded first stands: approve gets it, and this one learns it", async () => {
		const { store } = recordingStore({ standing: "deny" });
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		const approved = confirmations.wait("k1", new AbortController().signal);
		expect(await confirmations.decide("k1", "allow")).toEqual({ kind: "already", decision: "deny" });
		expect(await approved).toBe("deny");
		expect(await confirmations.decide("k1", "allow")).toEqual({ kind: "already", decision: "deny" });
	});

	it("an answer given before approve asks is not what approve gets until the store agrees: one recorded first stands", async () => {
		const { store } = recordingStore({ standing: "deny" });
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		const answered = confirmations.decide("k1", "allow");
		// approve asks while the answer is on its way to the store.
		const approved = confirmations.wait("k1", new AbortController().signal);
		expect(confirmations.pending()).toEqual([]);
		expect(await answered).toEqual({ kind: "already", decision: "deny" });
		expect(await approved).toBe("deny");
	});

	it("an answer the store could not take leaves the confirmation pending, to be answered again", async () => {
		const { store } = recordingStore({ failingDecides: 1 });
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		const approved = confirmations.wait("k1", new AbortController().signal);
		await expect(confirmations.decide("k1", "allow")).rejects.toThrow("the store is locked");
		expect(confirmations.pending().map((c) => c.correlationId)).toEqual(["k1"]);
		expect(await confirmations.decide("k1", "allow")).toEqual({ kind: "decided" });
		expect(await approved).toBe("allow");
	});

	it("another process's answer that comes while this one's write fails is the one approve gets", async () => {
		const { store } = recordingStore();
		let fail!: (error: Error) => void;
		store.decideConfirmation = () =>
			new Promise((_, reject) => {
				fail = reject;
			});
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		const approved = confirmations.wait("k1", new AbortController().signal);
		const answered = confirmations.decide("k1", "allow");
		// Its write on its way to the store (the insert landed first), another process's answer comes.
		await new Promise<void>((next) => setImmediate(next));
		confirmations.settle("k1", "deny");
		fail(new Error("the store is locked"));
		expect(await answered).toEqual({ kind: "already", decision: "deny" });
		expect(await approved).toBe("deny");
		expect(confirmations.pending()).toEqual([]);
	});

	it("a second answer while the first one's write fails is recorded itself", async () => {
		const { store } = recordingStore({ failingDecides: 1 });
		const confirmations = new ConfirmationAnswers("s1", store, () => {});
		await confirmations.request(question);
		const approved = confirmations.wait("k1", new AbortController().signal);
		const first = confirmations.decide("k1", "allow");
		const second = confirmations.decide("k1", "deny");
		await expect(first).rejects.toThrow("the store is locked");
		expect(await second).toEqual({ kind: "decided" });
		expect(await approved).toBe("deny");
	});
});
