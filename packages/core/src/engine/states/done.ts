import { makeMessage } from "../../messages/constructors.js";
import { buildCarryOver } from "../carry-over.js";
import type { LoopContext, LoopState } from "../loop-types.js";

/**
 * done: record the reason and usage. An abort first builds the carry-over for the next run and
 * emits `abort`; after it only `done` follows.
 */
export async function done(ctx: LoopContext, state: Extract<LoopState, { kind: "done" }>): Promise<void> {
	const { session } = ctx;
	ctx.close();
	session.undeliveredSteering.push(...ctx.steering.close());
	if (state.reason === "user_abort") {
		const carryOver = buildCarryOver(ctx.turn);
		session.carryOver = carryOver.messages;
		ctx.emitFinal(makeMessage("abort", { carryOver: carryOver.case }));
	}
	ctx.emitFinal(
		makeMessage("done", {
			reason: state.reason,
			usage: { ...ctx.taskUsage },
			sessionUsage: { ...session.usage },
			...(state.error === undefined ? {} : { error: state.error }),
		}),
	);
	session.trace.flush();
}
