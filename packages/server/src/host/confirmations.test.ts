import { describe, expect, it } from "vitest";
import type { Store } from "../store/store.js";
import { ConfirmationAnswers } from "./confirmations.js";

/** The store calls ConfirmationAnswers makes, recorded. */
function recordingStore() {
	const decided: [string, string][] = [];
	const store = {
		addConfirmation: async () => {},
		decideConfirmation: async (id: string, decision: string) => {
			decided.push([id, decision]);
			return decision;
		},
		getConfirmation: async () => undefined,
	} as unknown as Store;
	return { store, decided };
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
});
