import type { ModelMessage } from "../../src/messages/omni-message.js";

/** Pairing as a provider checks it: each call answered exactly once after it, no output without its call. */
export function pairingProblems(messages: readonly ModelMessage[]): string[] {
	const problems: string[] = [];
	const calls = new Map<string, number>();
	const answered = new Map<string, number>();
	messages.forEach((m, i) => {
		if (m.type === "tool_call") {
			if (calls.has(m.callId)) problems.push(`call ${m.callId} repeated`);
			calls.set(m.callId, i);
		}
		if (m.type === "tool_call_output") {
			const at = calls.get(m.callId);
			if (at === undefined || at > i) problems.push(`output ${m.callId} without a call before it`);
			answered.set(m.callId, (answered.get(m.callId) ?? 0) + 1);
		}
	});
	for (const id of calls.keys())
		if (answered.get(id) !== 1) problems.push(`call ${id} answered ${answered.get(id) ?? 0} times`);
	return problems;
}
