import type { DoneReason, Usage } from "@omniloop/core";

const count = (n: number) => n.toLocaleString("en-US");

/** `input 1,234 · cached 1,000 · output 56 · total 1,290 tokens` */
export function formatUsage(usage: Usage): string {
	return `input ${count(usage.input)} · cached ${count(usage.cacheRead)} · output ${count(usage.output)} · total ${count(usage.total)} tokens`;
}

/** What a Task's ending means, in words, for the line that closes it. */
export function describeEnding(reason: DoneReason): string {
	switch (reason) {
		case "model_stop":
			return "done";
		case "user_abort":
			return "interrupted";
		case "error":
			return "stopped by an error";
		case "max_turns":
			return "stopped: the turn limit (maxTurns) was reached";
		case "budget_exceeded":
			return "stopped: the Session's token budget (maxSessionTokens) is used up";
		case "loop_detected":
			return "stopped: the model kept repeating the same tool calls";
	}
}
