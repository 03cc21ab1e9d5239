import type { HostContext } from "../host/host-context.js";
import type { SessionRegistry } from "../host/session-registry.js";
import type { ApprovalWaits } from "./approvals/approval-waits.js";
import type { Deadlines } from "./approvals/deadlines.js";
import type { KeyedLock } from "./driving/keyed-lock.js";
import type { WorkflowStore } from "./workflow-store.js";

/** What the runner's parts share: the store, the hosted Sessions, and what lives only in this process. */
export interface WorkflowContext {
	readonly store: WorkflowStore;
	readonly registry: SessionRegistry;
	readonly host: HostContext;
	/** One workflow's reads and writes at a time. */
	readonly lock: KeyedLock;
	readonly waits: ApprovalWaits;
	readonly deadlines: Deadlines;
	/** Workflows whose Task runs in this process now. */
	readonly live: Set<string>;
	/** An approval's deadline passed: it becomes a deny (`by: "timeout"`). */
	readonly expire: (workflowId: string, correlationId: string) => void;
	/** The server is shutting down: nothing more is started or recorded as an outcome. */
	closing: boolean;
}
