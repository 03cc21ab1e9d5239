// The server benches' provider: a model that streams text deltas at a steady rate, so what is
// measured is the server's work for a known load, not a model's.
import { setTimeout as sleep } from "node:timers/promises";

export const DELTA = "lorem ipsum dolor sit amet, consectetur adipiscing elit ";

/**
 * Streams `rate` deltas a second for `seconds`, then its text, usage and outcome. `deltaOf(request)`
 * picks a Task's delta (default DELTA): a bench gives one Session bigger ones.
 */
export class PacedModel {
	id = "bench:paced";
	supportsCompaction = false;

	constructor({ rate, seconds, deltaOf = () => DELTA }) {
		this.rate = rate;
		this.seconds = seconds;
		this.deltaOf = deltaOf;
	}

	async *streamGenerate(request, signal) {
		const delta = this.deltaOf(request);
		const count = this.rate * this.seconds;
		const start = performance.now();
		for (let i = 0; i < count && !signal.aborted; i++) {
			const wait = start + ((i + 1) * 1000) / this.rate - performance.now();
			if (wait > 0) await sleep(wait);
			yield { type: "text_delta", delta };
		}
		yield { type: "text", text: "(bench text)" };
		yield {
			type: "usage",
			usage: { input: 10, output: count, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 10 + count },
		};
		yield { type: "outcome", outcome: { status: "ok", finishReason: "stop" } };
	}
}
