export { type Agent, AgentConfigError, type AgentOptions, createAgent } from "./agent.js";
export { type RunOptions, Session } from "./context-engine.js";
export { RunInputError, SessionBusyError, SessionNotFoundError } from "./errors.js";
export type { PairingRepairHook } from "./loop-types.js";
export { ensurePairing, type PairingRepair } from "./pairing.js";
