export type { PendingConfirmation } from "./continuation/unfinished-turn.js";
export type { ActionGuard, PairingRepairHook, TraceShipHook } from "./loop-types.js";
export { ensurePairing, type PairingRepair } from "./pairing.js";
export {
	type Agent,
	AgentConfigError,
	type AgentConfigProblem,
	type AgentOptions,
	createAgent,
} from "./session/agent.js";
export { RunInputError, SessionBusyError, SessionNotFoundError } from "./session/errors.js";
export type { ForkOptions } from "./session/fork.js";
export { type Compactability, type RunOptions, Session, type UnfinishedTask } from "./session/session.js";
export type { RestoreDone, RewindDone, RewindOptions } from "./session/session-files.js";
