import { describe, expect, it } from "vitest";
import { RequestControllers } from "./request-controllers.js";

describe("a Session's model requests and their AbortControllers", () => {
	it("hands a request's controller to the next once it ended unaborted and unwatched", () => {
		const controllers = new RequestControllers();
		const first = controllers.take();
		controllers.giveBack(first);
		expect(controllers.take()).toBe(first);
		// Given out once: the request after gets another.
		expect(controllers.take()).not.toBe(first);
	});

	it("never hands on an aborted controller: the next request's signal is live", () => {
		const controllers = new RequestControllers();
		const first = controllers.take();
		first.abort();
		controllers.giveBack(first);
		const next = controllers.take();
		expect(next).not.toBe(first);
		expect(next.signal.aborted).toBe(false);
	});

	it("never hands on a signal something still listens to (a model that kept its listener)", () => {
		const controllers = new RequestControllers();
		const first = controllers.take();
		const listener = () => {};
		first.signal.addEventListener("abort", listener);
		controllers.giveBack(first);
		expect(controllers.take()).not.toBe(first);
		first.signal.removeEventListener("abort", listener);
		controllers.giveBack(first);
		expect(controllers.take()).toBe(first);
	});
});
