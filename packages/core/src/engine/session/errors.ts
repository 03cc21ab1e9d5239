/** A second `run` (or a compaction) while a Task is active on the Session. The first is unharmed. */
export class SessionBusyError extends Error {
	override readonly name = "SessionBusyError";
	constructor(readonly sessionId: string) {
		super(`session ${sessionId} is busy: one Task runs at a time; wait for its done event or abort it`);
	}
}

/** `run` was given something that is not a list of model messages. */
export class RunInputError extends Error {
	override readonly name = "RunInputError";
}

/** A Session could not be found or rebuilt from its Trace. */
export class SessionNotFoundError extends Error {
	override readonly name = "SessionNotFoundError";
	constructor(
		readonly sessionId: string,
		readonly dir: string,
	) {
		super(`no session ${sessionId}: ${dir} holds no Trace file`);
	}
}

/**
 * The reason a host gives when it stops a Task that no person stopped (a server shutting down):
 * passed to the run's AbortController, it ends the Task as any abort does (`abort`, then `done {
 * reason: "user_abort" }`), and `done.error` says so — `{ kind: "host_stop", message }` — so a
 * client does not tell the person that they stopped it.
 */
export class HostStop extends Error {
	override readonly name = "HostStop";
}
