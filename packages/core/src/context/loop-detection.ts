import { createHash } from "node:crypto";
import { canonicalArguments } from "../messages/canonical-arguments.js";
import type { ToolCall, ToolCallOutput } from "../messages/omni-message.js";

export type LoopVerdict = "ok" | "warn" | "stop";

/**
 * Notices a model repeating itself: the same tool with the same (canonical) arguments getting the
 * same result. When such a call reaches the limit (`repeats` times in one Task) the Task ends
 * (`loop_detected`); one repeat before that, the model is warned once, so a model that heeds the
 * warning is never stopped (with `repeats: 2` there is no repeat before: a first call is no
 * loop). Calls are counted as their outputs join the context, a turn's calls together: a turn of
 * identical parallel calls may reach the limit without a warning between.
 * Polling that gets new results makes a new key each time, so it is never a loop.
 */
export class LoopDetector {
	private readonly counts = new Map<string, number>();
	private warned = false;
	private verdict: LoopVerdict = "ok";
	private lastRepeated: ToolCall | undefined;

	constructor(private readonly repeats: number) {}

	record(call: ToolCall, output: ToolCallOutput): void {
		const key = `${call.name}\u0000${canonicalArguments(call.arguments)}\u0000${hash(output.output)}`;
		const count = (this.counts.get(key) ?? 0) + 1;
		this.counts.set(key, count);
		if (count >= this.repeats) {
			this.lastRepeated = call;
			this.verdict = "stop";
		} else if (count === this.repeats - 1 && count > 1 && !this.warned && this.verdict === "ok") {
			this.lastRepeated = call;
			this.warned = true;
			this.verdict = "warn";
		}
	}

	/** What to do now; "warn" is reported once. */
	take(): { verdict: LoopVerdict; call: ToolCall | undefined } {
		const verdict = this.verdict;
		if (verdict === "warn") this.verdict = "ok";
		return { verdict, call: this.lastRepeated };
	}
}

function hash(text: string): string {
	return createHash("sha256").update(text).digest("base64url");
}
