import type { MessageOf } from "@omniloop/client";
import { describe, expect, it } from "vitest";
import { describeDone } from "./describe.js";

const done = (fields: Partial<MessageOf<"done">>): MessageOf<"done"> =>
	({
		type: "done",
		id: "d",
		ts: 0,
		seq: 1,
		reason: "user_abort",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		sessionUsage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		...fields,
	}) as MessageOf<"done">;

describe("describeDone", () => {
	it("says who stopped a Task: the person, or the server (a shutdown) with its reason", () => {
		expect(describeDone(done({}))).toBe("The Task was stopped.");
		expect(describeDone(done({ error: { kind: "host_stop", message: "the server shut down" } }))).toBe(
			"The Task was stopped: the server shut down.",
		);
		expect(describeDone(done({ reason: "model_stop" }))).toBeUndefined();
	});
});
