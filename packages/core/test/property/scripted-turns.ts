import type { ScriptedStep } from "../../src/model/scripted.js";

/** A turn of a random schedule: its text in chunks, its calls, and whether the calls stream with gaps. */
export interface ScheduledTurn<Plan> {
	text: string[];
	calls: Plan[];
	/** Above 0: a pause after every other call, so the batch starts before the turn has streamed. */
	gapTicks?: number;
}

/**
 * The model's turns for a random schedule of the property tests, then a final answer, and each
 * call id's plan. With `repeatIds` the model repeats call ids (as some servers do): the first
 * plan of an id is the one kept.
 */
export function scriptFor<Plan extends { readOnly: boolean }>(schedule: {
	turns: readonly ScheduledTurn<Plan>[];
	repeatIds: boolean;
}): { steps: ScriptedStep[][]; plans: Map<string, Plan> } {
	const plans = new Map<string, Plan>();
	const steps = schedule.turns.map((turn, t) => {
		const out: ScriptedStep[] = [];
		if (turn.text.length > 0) out.push({ type: "text", text: turn.text.join(""), chunks: turn.text });
		turn.calls.forEach((plan, i) => {
			const callId = schedule.repeatIds ? `c${i % 2}` : `t${t}c${i}`;
			if (!plans.has(callId)) plans.set(callId, plan);
			out.push({ type: "tool_call", name: plan.readOnly ? "look" : "change", args: { id: callId }, callId });
			if ((turn.gapTicks ?? 0) > 0 && i % 2 === 0) out.push({ type: "delay", ms: 0 });
		});
		out.push({ type: "usage", usage: { input: 10 + t, output: 3 } });
		return out;
	});
	steps.push([{ type: "text", text: "final answer", chunks: ["final ", "answer"] }]);
	return { steps, plans };
}
