// The baseline: a bare async-generator loop over the mock, tools run with Promise.all. It does
// the work every loop must do (stream, collect calls, run them, feed outputs back) and nothing else.
import { counting, Pacer } from "../mock.mjs";

async function* bareLoop(script, tool, counts) {
	const pacer = new Pacer();
	const messages = [{ role: "user", text: "go" }];
	for (const turn of script) {
		counts.modelCalls++;
		const calls = [];
		let text = "";
		for (const delta of turn.deltas) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			text += delta;
			yield { kind: "delta", text: delta };
		}
		for (const call of turn.calls) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			calls.push(call);
			yield { kind: "call", ...call };
		}
		messages.push({ role: "assistant", text, calls });
		if (calls.length === 0) return;
		const outputs = await Promise.all(calls.map((call) => tool(JSON.parse(call.args))));
		for (let i = 0; i < calls.length; i++) {
			const output = { role: "tool", callId: calls[i].id, output: outputs[i] };
			messages.push(output);
			yield output;
		}
	}
}

export async function run(script, timed) {
	const { counts, tool } = counting();
	await timed(async () => {
		for await (const event of bareLoop(script, tool, counts))
			if (event.kind === "delta") counts.chars += event.text.length;
	});
	return counts;
}
