// The mock model protocol every contender reads: the same turns, the same deltas, the same
// pacing. A real model arrives over a socket, so the mock yields to the event loop (a macrotask,
// as a socket read would be) every 64 events; between those, events follow in microtasks. Each
// contender's mock is one loop in its own event format (no extra layer for any of them): deltas,
// then calls, each after `pacer.tick()`.
import { setImmediate as macrotask } from "node:timers/promises";

export const EVENTS_PER_READ = 64;
export const W1_DELTAS = 100_000;

/** W1: one turn of 100,000 four-character text deltas. */
export function w1Script() {
	return [{ deltas: Array.from({ length: W1_DELTAS }, (_, i) => `w${i % 10}x `), calls: [] }];
}

/** W2: `turns` turns of 8 text deltas and 4 tool calls each; the last answers with text only. */
export function w2Script(turns) {
	const script = [];
	for (let t = 0; t < turns - 1; t++) {
		script.push({
			deltas: Array.from({ length: 8 }, (_, i) => `t${t}d${i} `),
			calls: [0, 1, 2, 3].map((i) => ({ id: `c${t}_${i}`, name: "noop", args: JSON.stringify({ i }) })),
		});
	}
	script.push({ deltas: ["do", "ne"], calls: [] });
	return script;
}

/** What every contender must have done, to check its run really did the work. */
export function expected(script) {
	return {
		modelCalls: script.length,
		toolExecutions: script.reduce((n, turn) => n + turn.calls.length, 0),
		chars: script.reduce((n, turn) => n + turn.deltas.join("").length, 0),
	};
}

/** The pacing shared by every contender's mock: one counter, a macrotask every 64 events. */
export class Pacer {
	count = 0;
	/** Call once per event; await the result when it is a promise. */
	tick() {
		return ++this.count % EVENTS_PER_READ === 0 ? macrotask() : undefined;
	}
}

/** What a contender's run counts, and a no-op tool that counts its executions (the plain loops' tool). */
export function counting() {
	const counts = { modelCalls: 0, toolExecutions: 0, chars: 0 };
	const tool = async () => {
		counts.toolExecutions++;
		return "ok";
	};
	return { counts, tool };
}
