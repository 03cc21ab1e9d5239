export { readServerToken } from "./auth/token.js";
export { DEMO_NOTICE } from "./host/agents.js";
export { type RunningServer, type ServerOptions, createServer } from "./server.js";
export type { Store, StoredSession, UsageRow } from "./store/store.js";
