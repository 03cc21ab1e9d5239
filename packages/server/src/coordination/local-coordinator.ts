import { SessionLog } from "../host/log/session-log.js";
import type { Store, StoredSession, UsageRow } from "../store/store.js";
import type { Coordinator, EngineHooks, HeldWork, SessionAction } from "./coordinator.js";
import { type SessionFence, UNFENCED } from "./session-fence.js";

const NOTHING_HELD: HeldWork = { sessions: new Set(), workflows: new Set() };

/**
 * One server process alone on its store (SQLite, or Postgres without other processes): the only
 * writer, so every claim is its own and nothing runs elsewhere (docs/cluster.md). Confirmations
 * a previous process left pending died with it.
 */
export class LocalCoordinator implements Coordinator {
	readonly engineHooks: EngineHooks = { shipTrace: undefined, guard: undefined };
	readonly importsHomeUsage = true;

	constructor(private readonly store: Store) {}

	async opened(): Promise<void> {
		await this.store.interruptPendingConfirmations(Date.now());
	}

	sessionLog(home: string, sessionId: string): SessionLog {
		return new SessionLog(home, sessionId);
	}

	async relayBus(): Promise<void> {}
	async created(): Promise<void> {}

	async madeElsewhere(): Promise<StoredSession | undefined> {
		return undefined;
	}

	async workflowSessionElsewhere(): Promise<string | undefined> {
		return undefined;
	}

	async claim(): Promise<void> {}
	async release(): Promise<void> {}
	async refresh(): Promise<void> {}
	watch(): void {}

	async actionsFor(): Promise<SessionAction[]> {
		return [];
	}

	begun(): void {}

	sessionFence(): SessionFence {
		return UNFENCED;
	}

	addUsage(row: UsageRow): Promise<void> {
		return this.store.addUsage(row);
	}

	async runsElsewhere(): Promise<boolean> {
		return false;
	}

	async held(): Promise<HeldWork> {
		return NOTHING_HELD;
	}

	async steerElsewhere(): Promise<boolean> {
		return false;
	}

	async abortElsewhere(): Promise<boolean> {
		return false;
	}

	async stopElsewhere(): Promise<void> {}

	async pendingElsewhere(): Promise<undefined> {
		return undefined;
	}

	async answerElsewhere(): Promise<undefined> {
		return undefined;
	}

	async deleteSession(): Promise<void> {}
	forget(): void {}

	async holdWorkflow(): Promise<boolean> {
		return true;
	}

	holdsWorkflow(): boolean {
		return true;
	}

	async releaseWorkflow(): Promise<void> {}

	workflowFence(): undefined {
		return undefined;
	}

	async workflowElsewhere(): Promise<void> {}
	watchWorkflows(): void {}

	everyLease(): () => void {
		return () => {};
	}

	async close(): Promise<void> {}
}
