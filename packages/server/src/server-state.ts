import type { HttpBindings } from "@hono/node-server";
import type { HostContext } from "./host/host-context.js";
import type { SessionRegistry } from "./host/session-registry.js";
import type { Metrics } from "./metrics.js";
import type { Flusher } from "./sse/flusher.js";
import type { ViewerSettings } from "./sse/viewer.js";
import type { WorkflowRunner } from "./workflows/workflow-runner.js";

/** What the routes work on. */
export interface ServerState {
	readonly registry: SessionRegistry;
	readonly host: HostContext;
	readonly token: string;
	/** Real paths; `workspaceDir` must lie inside one. The first is the default. */
	readonly workspaceRoots: readonly string[];
	readonly viewer: ViewerSettings;
	readonly flusher: Flusher;
	readonly metrics: Metrics;
	readonly workflows: WorkflowRunner;
}

/** The Hono environment: `@hono/node-server` hands routes the Node request and response. */
export type AppEnv = { Bindings: HttpBindings };
