import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../../src/model/model-adapter.js";
import { cleanup, echoTool, strictAgent, tempDir } from "../harness.js";

afterEach(cleanup);

/**
 * A model whose first request leaves work running after its outcome (a usage report, a cache
 * warm-up), bounded by the request's signal through AbortSignal.any as fetch-with-a-timeout code
 * does: no abort listener shows on the signal. Its second request calls `waiting` once it listens
 * for its abort, then waits for it.
 */
class LingeringModel implements ModelAdapter {
	readonly id = "test:lingering";
	readonly signals: AbortSignal[] = [];
	lingering: AbortSignal | undefined;
	constructor(private readonly waiting: () => void) {}

	async *streamGenerate(_request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
		this.signals.push(signal);
		if (this.signals.length === 1) {
			this.lingering = AbortSignal.any([signal, AbortSignal.timeout(60_000)]);
			yield { type: "tool_call", callId: "c1", name: "echo", arguments: '{"text":"a"}' };
			yield { type: "outcome", outcome: { status: "ok", finishReason: "tool_calls" } };
			return;
		}
		const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
		this.waiting();
		await aborted;
		yield { type: "outcome", outcome: { status: "aborted" } };
	}
}

describe("a model request's signal", () => {
	it("is its own: aborting a later request never reaches work an earlier one left running", async () => {
		const controller = new AbortController();
		const model = new LingeringModel(() => controller.abort());
		const agent = await strictAgent({ model, home: tempDir("omniloop-home-"), tools: [echoTool()] });
		const session = await agent.createSession({ workspaceDir: tempDir("omniloop-ws-") });
		for await (const _ of session.run([userText("go")], { signal: controller.signal })) {
		}
		expect(model.signals).toHaveLength(2);
		expect(model.signals[1]?.aborted).toBe(true);
		expect(model.signals[0]).not.toBe(model.signals[1]);
		expect(model.lingering?.aborted).toBe(false);
	});
});
