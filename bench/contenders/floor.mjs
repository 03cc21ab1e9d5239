// The floor under omniloop's two interfaces (DESIGN §2, §4): the model is an async iterable
// (`ModelAdapter.streamGenerate`) and the host reads the run as an async iterator
// (`Session.run`). Here nothing stands between them but a relay: the same mock model, every event
// passed on through a minimal channel, tools run with Promise.all — no ids, seq, Trace, approvals
// or events of our own. No loop behind these two interfaces goes below it; the bare loop, one
// generator with the mock inline, has one promise hop per event where this has two.
import { counting } from "../mock.mjs";
import { MockModel } from "./omniloop-mock.mjs";

/** The least a channel between a producer and an async reader can be: a queue and one waiting reader. */
class Channel {
	#items = [];
	#head = 0;
	#reader;
	#closed = false;
	push(value) {
		const reader = this.#reader;
		if (reader !== undefined) {
			this.#reader = undefined;
			reader({ value, done: false });
		} else this.#items.push(value);
	}
	close() {
		this.#closed = true;
		this.#reader?.({ value: undefined, done: true });
	}
	next() {
		if (this.#head < this.#items.length) {
			const value = this.#items[this.#head];
			this.#items[this.#head++] = undefined;
			if (this.#head === this.#items.length) {
				this.#items = [];
				this.#head = 0;
			}
			return Promise.resolve({ value, done: false });
		}
		if (this.#closed) return Promise.resolve({ value: undefined, done: true });
		return new Promise((resolve) => {
			this.#reader = resolve;
		});
	}
	[Symbol.asyncIterator]() {
		return this;
	}
}

async function relay(model, tool, channel) {
	for (;;) {
		const calls = [];
		for await (const event of model.streamGenerate()) {
			if (event.type === "tool_call") calls.push(event);
			channel.push(event);
		}
		if (calls.length === 0) break;
		const outputs = await Promise.all(calls.map((call) => tool(JSON.parse(call.arguments))));
		for (let i = 0; i < calls.length; i++)
			channel.push({ type: "tool_call_output", callId: calls[i].callId, output: outputs[i] });
	}
	channel.close();
}

export async function run(script, timed) {
	const { counts, tool } = counting();
	await timed(async () => {
		const channel = new Channel();
		const relayed = relay(new MockModel(script, counts), tool, channel);
		for await (const event of channel) if (event.type === "text_delta") counts.chars += event.delta.length;
		await relayed;
	});
	return counts;
}
