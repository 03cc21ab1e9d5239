import { toUsage } from "../messages/constructors.js";
import type { JsonObject, Usage } from "../messages/omni-message.js";
import { ModelError, type ModelFailure } from "./failure.js";
import { type Gate, sleep } from "./gate.js";
import type { FinishReason, ModelAdapter, ModelEvent, ModelRequest } from "./model-adapter.js";

/**
 * One step of a scripted turn.
 * - `text` / `reasoning`: deltas (`chunks`, default the whole text as one delta), then the complete item.
 * - `text_deltas`, `reasoning_deltas`: deltas with no complete item after them (a response cut off mid-text).
 * - `tool_call_deltas`: a call's argument deltas with no complete call after them (cut off mid-call).
 * - `tool_call`: argument deltas, then the complete call. `args` is JSON text or a value to serialize.
 * - `usage`: the turn's usage report (the last one wins).
 * - `delay`: waits, abortably (works under fake timers).
 * - `gate`: waits until the test releases the gate.
 * - `stall`: never yields again; only the signal ends it (for timeout tests).
 * - `fail`: ends the turn with a failure, in one of the three shapes providers use: an error
 *   outcome, a thrown error before the first event, or a rejected iterator mid-stream.
 */
export type ScriptedStep =
	| { type: "text"; text: string; chunks?: readonly string[] }
	| { type: "text_deltas"; chunks: readonly string[] }
	| { type: "reasoning_deltas"; chunks: readonly string[] }
	| { type: "tool_call_deltas"; name: string; callId: string; chunks: readonly string[] }
	| { type: "reasoning"; text: string; chunks?: readonly string[]; providerMetadata?: JsonObject }
	| { type: "tool_call"; name: string; args?: string | JsonObject; callId?: string; chunks?: readonly string[] }
	| { type: "usage"; usage: Partial<Usage> }
	| { type: "delay"; ms: number }
	| { type: "gate"; gate: Gate }
	| { type: "stall" }
	| { type: "fail"; failure: ModelFailure; shape?: "outcome" | "throw" | "reject" };

/** A turn is a list of steps, or a function of the request that returns them. */
export type ScriptedTurn =
	| readonly ScriptedStep[]
	| ((request: ModelRequest, index: number) => readonly ScriptedStep[]);

export interface ScriptedModelOptions {
	id?: string;
	/** A wait before every step, in ms (0 by default: steps follow each other in microtasks). */
	stepDelayMs?: number;
	/** What a request past the end of the script gets: a fatal failure (default) or a plain answer. */
	whenExhausted?: "fail" | { text: string };
	/** False for a script that cannot write compaction summaries (the offline demo). */
	supportsCompaction?: boolean;
}

/** A request as the scripted model received it: the message list is copied at receipt. */
export type RecordedRequest = ModelRequest;

/**
 * A deterministic ModelAdapter that replays a script, one turn per request, and records every
 * request it receives. For tests and the offline demo; never used unless asked for by name.
 */
export class ScriptedModel implements ModelAdapter {
	readonly id: string;
	readonly supportsCompaction: boolean;
	readonly requests: RecordedRequest[] = [];
	private readonly turns: ScriptedTurn[];
	private callCounter = 0;

	constructor(
		turns: readonly ScriptedTurn[],
		private readonly options: ScriptedModelOptions = {},
	) {
		this.turns = [...turns];
		this.id = options.id ?? "scripted:model";
		this.supportsCompaction = options.supportsCompaction ?? true;
	}

	/** Appends turns to the script. */
	push(...turns: ScriptedTurn[]): void {
		this.turns.push(...turns);
	}

	streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
		const index = this.requests.length;
		this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
		const turn = this.turns[index];
		const steps = turn === undefined ? this.exhausted(index) : typeof turn === "function" ? turn(request, index) : turn;
		const first = steps[0];
		if (first?.type === "fail" && first.shape === "throw") throw new ModelError(first.failure);
		return this.play(steps, signal);
	}

	private exhausted(index: number): readonly ScriptedStep[] {
		const when = this.options.whenExhausted ?? "fail";
		if (when === "fail") {
			return [{ type: "fail", failure: { class: "fatal", message: `scripted model has no turn ${index + 1}` } }];
		}
		return [{ type: "text", text: when.text }];
	}

	private async *play(steps: readonly ScriptedStep[], signal: AbortSignal): AsyncGenerator<ModelEvent> {
		let calledTools = false;
		let usage: Usage | undefined;
		try {
			for (const step of steps) {
				if (this.options.stepDelayMs) await sleep(this.options.stepDelayMs, signal);
				if (signal.aborted) break;
				switch (step.type) {
					case "text":
						for (const delta of step.chunks ?? [step.text]) yield { type: "text_delta", delta };
						yield { type: "text", text: step.text };
						break;
					case "text_deltas":
						for (const delta of step.chunks) yield { type: "text_delta", delta };
						break;
					case "reasoning_deltas":
						for (const delta of step.chunks) yield { type: "reasoning_delta", delta };
						break;
					case "tool_call_deltas":
						for (const delta of step.chunks)
							yield { type: "tool_call_delta", callId: step.callId, name: step.name, delta };
						break;
					case "reasoning":
						for (const delta of step.chunks ?? [step.text]) yield { type: "reasoning_delta", delta };
						yield step.providerMetadata === undefined
							? { type: "reasoning", text: step.text }
							: { type: "reasoning", text: step.text, providerMetadata: step.providerMetadata };
						break;
					case "tool_call": {
						calledTools = true;
						const callId = step.callId ?? `call_${++this.callCounter}`;
						const args = typeof step.args === "string" ? step.args : JSON.stringify(step.args ?? {});
						for (const delta of step.chunks ?? [args])
							yield { type: "tool_call_delta", callId, name: step.name, delta };
						yield { type: "tool_call", callId, name: step.name, arguments: args };
						break;
					}
					case "usage":
						usage = toUsage(step.usage);
						break;
					case "delay":
						await sleep(step.ms, signal);
						break;
					case "gate":
						await step.gate.wait(signal);
						break;
					case "stall":
						await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
						break;
					case "fail":
						if (step.shape === "reject" || step.shape === "throw") throw new ModelError(step.failure);
						if (usage) yield { type: "usage", usage };
						yield { type: "outcome", outcome: { status: "error", failure: step.failure } };
						return;
				}
			}
		} catch (error) {
			if (!signal.aborted) throw error;
		}
		if (signal.aborted) {
			yield { type: "outcome", outcome: { status: "aborted" } };
			return;
		}
		if (usage) yield { type: "usage", usage };
		const finishReason: FinishReason = calledTools ? "tool_calls" : "stop";
		yield { type: "outcome", outcome: { status: "ok", finishReason } };
	}
}

/** Step builders, so scripts read like the conversation they play. */
export const say = (text: string, chunks?: readonly string[]): ScriptedStep =>
	chunks === undefined ? { type: "text", text } : { type: "text", text, chunks };
export const think = (text: string): ScriptedStep => ({ type: "reasoning", text });
export const callTool = (name: string, args: JsonObject | string = {}, callId?: string): ScriptedStep =>
	callId === undefined ? { type: "tool_call", name, args } : { type: "tool_call", name, args, callId };
export const reportUsage = (usage: Partial<Usage>): ScriptedStep => ({ type: "usage", usage });
export const wait = (ms: number): ScriptedStep => ({ type: "delay", ms });
export const holdAt = (gate: Gate): ScriptedStep => ({ type: "gate", gate });
export const fail = (failure: ModelFailure, shape: "outcome" | "throw" | "reject" = "outcome"): ScriptedStep => ({
	type: "fail",
	failure,
	shape,
});
