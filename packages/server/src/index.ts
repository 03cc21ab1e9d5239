export { readServerToken, ServerTokenFileError } from "./auth/token.js";
export { DEMO_NOTICE } from "./host/agents.js";
export { createServer, type RunningServer, type ServerOptions } from "./server.js";
export { isPostgresUrl } from "./store/postgres.js";
export type { Store, StoredSession, UsageRow } from "./store/store.js";
