// pi-agent-core (the fastest peer we know of), driven through its public API: `new Agent({
// streamFn })` and `subscribe()`, on a streamFn that streams the same mock with the same pacing.
import { Agent } from "@mariozechner/pi-agent-core";
import { createAssistantMessageEventStream, Type } from "@mariozechner/pi-ai";
import { Pacer } from "../mock.mjs";

const usage = {
	input: 10,
	output: 10,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 20,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const model = {
	id: "mock",
	name: "mock",
	api: "openai-completions",
	provider: "bench",
	baseUrl: "http://127.0.0.1",
	reasoning: false,
	input: ["text"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 1_000_000,
	maxTokens: 1_000,
};

/** The mock as pi's stream protocol: start, text_start/delta/end, toolcall_start/delta/end, done. */
function mockStreamFn(script, counts) {
	const pacer = new Pacer();
	let next = 0;
	return () => {
		const turn = script[next++];
		counts.modelCalls++;
		const stream = createAssistantMessageEventStream();
		const partial = {
			role: "assistant",
			content: [],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage,
			stopReason: "stop",
			timestamp: Date.now(),
		};
		(async () => {
			stream.push({ type: "start", partial });
			if (turn.deltas.length > 0) {
				const text = { type: "text", text: "" };
				partial.content.push(text);
				stream.push({ type: "text_start", contentIndex: 0, partial });
				for (const delta of turn.deltas) {
					const wait = pacer.tick();
					if (wait !== undefined) await wait;
					text.text += delta;
					stream.push({ type: "text_delta", contentIndex: 0, delta, partial });
				}
				stream.push({ type: "text_end", contentIndex: 0, content: text.text, partial });
			}
			for (const { id, name, args } of turn.calls) {
				const wait = pacer.tick();
				if (wait !== undefined) await wait;
				const call = { type: "toolCall", id, name, arguments: JSON.parse(args) };
				partial.content.push(call);
				const index = partial.content.length - 1;
				stream.push({ type: "toolcall_start", contentIndex: index, partial });
				stream.push({ type: "toolcall_delta", contentIndex: index, delta: args, partial });
				stream.push({ type: "toolcall_end", contentIndex: index, toolCall: call, partial });
			}
			partial.stopReason = turn.calls.length > 0 ? "toolUse" : "stop";
			stream.push({ type: "done", reason: partial.stopReason, message: partial });
		})();
		return stream;
	};
}

export async function run(script, timed) {
	const counts = { modelCalls: 0, toolExecutions: 0, chars: 0 };
	const noop = {
		name: "noop",
		label: "noop",
		description: "Does nothing.",
		parameters: Type.Object({ i: Type.Number() }),
		execute: async () => {
			counts.toolExecutions++;
			return { content: [{ type: "text", text: "ok" }], details: undefined };
		},
	};
	const agent = new Agent({
		initialState: { systemPrompt: "", model, tools: [noop] },
		streamFn: mockStreamFn(script, counts),
		toolExecution: "parallel",
	});
	agent.subscribe((event) => {
		if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
			counts.chars += event.assistantMessageEvent.delta.length;
	});
	await timed(() => agent.prompt("go"));
	return counts;
}
