// The mock as an omniloop ModelAdapter (one script turn per request), shared by the omniloop
// contender and the floor under it, so both read exactly the same stream.
import { Pacer } from "../mock.mjs";

export class MockModel {
	id = "bench:mock";
	#pacer = new Pacer();
	#next = 0;
	constructor(script, counts) {
		this.script = script;
		this.counts = counts;
	}
	async *streamGenerate() {
		const turn = this.script[this.#next++];
		this.counts.modelCalls++;
		const pacer = this.#pacer;
		let text = "";
		for (const delta of turn.deltas) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			text += delta;
			yield { type: "text_delta", delta };
		}
		if (text !== "") yield { type: "text", text };
		for (const call of turn.calls) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			yield { type: "tool_call", callId: call.id, name: call.name, arguments: call.args };
		}
		yield { type: "usage", usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 20 } };
		yield { type: "outcome", outcome: { status: "ok", finishReason: turn.calls.length > 0 ? "tool_calls" : "stop" } };
	}
}
