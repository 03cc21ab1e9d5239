import type { SessionStore } from "@omniloop/core";
import type { ProjectConfigFile } from "@omniloop/core/internal";
import type { Coordinator } from "../coordination/coordinator.js";
import type { Metrics } from "../metrics.js";
import type { Store } from "../store/store.js";
import type { UsageRecorder } from "../usage/usage-recorder.js";
import type { AgentPool } from "./agents.js";
import type { Credentials } from "./credentials.js";
import type { EventBus } from "./log/event-bus.js";

/** What every hosted Session shares: the store, the agents, the credentials, the event bus. */
export interface HostContext {
	readonly home: string;
	/** The Sessions under the home: their Traces, titles, and deleting one. */
	readonly sessions: SessionStore;
	/** The project's omniloop.yaml, read per request (parsed again only when it changed). */
	readonly project: ProjectConfigFile;
	readonly store: Store;
	/** Writes usage rows, keeping each until the store has it. */
	readonly usage: UsageRecorder;
	readonly agents: AgentPool;
	readonly credentials: Credentials;
	readonly bus: EventBus;
	readonly metrics: Metrics;
	/** Failures nobody waits for (a usage row that could not be written): logged, never thrown. */
	report(error: unknown): void;
	/** How this process shares its Sessions and workflows with other processes on the store (maybe none). */
	readonly coordinator: Coordinator;
}
