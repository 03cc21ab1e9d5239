import type { DoneReason } from "@omniloop/core";

/** Process exit codes: one per way a Task can end, so scripts can tell them apart. */
export const EXIT = {
	ok: 0,
	error: 1,
	usage: 2,
	maxTurns: 3,
	budgetExceeded: 4,
	loopDetected: 5,
	interrupted: 130,
} as const;

export function exitCodeFor(reason: DoneReason): number {
	switch (reason) {
		case "model_stop":
			return EXIT.ok;
		case "error":
			return EXIT.error;
		case "max_turns":
			return EXIT.maxTurns;
		case "budget_exceeded":
			return EXIT.budgetExceeded;
		case "loop_detected":
			return EXIT.loopDetected;
		case "user_abort":
			return EXIT.interrupted;
	}
}
