import type { DoneReason, Usage } from "@omniloop/core";

/**
 * 1290 → "1,290", by hand: the first toLocaleString of a process loads ICU's number data (~17 ms
 * of CPU), and `omniloop run` prints a count once, at the end of every Task.
 */
export function count(n: number): string {
	const grouped = String(Math.trunc(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	return n < 0 ? `-${grouped}` : grouped;
}

/** `input 1,234 · cached 1,000 · output 56 · total 1,290 tokens` */
export function formatUsage(usage: Usage): string {
	return `input ${count(usage.input)} · cached ${count(usage.cacheRead)} · output ${count(usage.output)} · total ${count(usage.total)} tokens`;
}

/**
 * The usage on the line that closes a Task: the Task's own, then the Session's total when it is
 * more (an interrupted request reports nothing, and "total 0" alone reads as if the Session were empty).
 */
export function formatTaskUsage(task: Usage, session: Usage): string {
	const own = formatUsage(task);
	return session.total > task.total ? `${own} · Session total ${count(session.total)} tokens` : own;
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
