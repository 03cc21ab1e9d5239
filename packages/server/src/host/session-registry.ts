import type { SessionSummary } from "@omniloop/client/wire";
import {
	addUsage,
	emptyUsage,
	HostStop,
	type LeftOutFile,
	type Session,
	type SessionSummary as TraceSummary,
	type Usage,
} from "@omniloop/core";
import { readChosenModel, writeChosenModel } from "@omniloop/core/internal";
import { HttpError, notFound } from "../errors.js";
import type { StoredSession } from "../store/store.js";
import type { AgentPool } from "./agents.js";

import type { HostContext } from "./host-context.js";
import { HostedSession, type SessionStatus } from "./hosted-session.js";
import { importTraceUsage, ranWithoutServer } from "./trace-usage.js";

/** A Session as `GET /chat/sessions` lists it: the wire's. */
export type { SessionSummary };

/**
 * Whether a Session's workspace lies inside the server's workspace roots. A Session outside them
 * (the CLI's, made in another folder on the same home) is not served at all: its tools would
 * work there on behalf of whoever holds the token.
 */
export type ServesWorkspace = (workspaceDir: string) => boolean;

/** Every Session the server knows: from the store, loaded into memory on first use. */
export class SessionRegistry {
	private readonly sessions = new Map<string, HostedSession>();
	/** Sessions on this home or store whose workspace is outside the roots: never listed, read or driven. */
	private readonly hidden = new Set<string>();

	private constructor(
		private readonly host: HostContext,
		private readonly serves: ServesWorkspace,
	) {}

	/**
	 * Opens the index. Confirmations left pending by a previous process are over (their Task died
	 * with it), and Sessions made outside the server (the CLI) on the same home are added — those
	 * whose workspace is inside the roots; the others are hidden (`hiddenCount`).
	 */
	static async open(host: HostContext, serves: ServesWorkspace): Promise<SessionRegistry> {
		const registry = new SessionRegistry(host, serves);
		await host.coordinator.opened();
		const known = new Map((await host.store.listSessions()).map((row) => [row.id, row]));
		for (const summary of host.sessions.list()) {
			const stored = known.get(summary.sessionId);
			// Usage of Tasks the CLI ran in-process: on the Trace only, until imported here.
			if (
				host.coordinator.importsHomeUsage &&
				summary.usage.total > 0 &&
				ranWithoutServer(summary, stored) &&
				serves(summary.workspaceDir)
			) {
				await importTraceUsage(host.store, host.sessions, stored ?? rowOf(summary));
			}
			if (stored !== undefined) continue;
			if (!serves(summary.workspaceDir)) {
				registry.hidden.add(summary.sessionId);
				continue;
			}
			const row = rowOf(summary);
			await host.store.putSession(row);
			known.set(row.id, row);
		}
		for (const row of known.values()) registry.admit(row);
		return registry;
	}

	/** How many Sessions of the home and the store this server hides: their workspace is outside the roots. */
	get hiddenCount(): number {
		return this.hidden.size;
	}

	/** True for a Session this server does not serve (its workspace is outside the roots). */
	hides(id: string): boolean {
		return this.hidden.has(id);
	}

	/** Hosts a stored Session when its workspace is inside the roots; records it as hidden otherwise. */
	private admit(row: StoredSession): void {
		if (this.sessions.has(row.id)) return;
		if (!this.serves(row.workspaceDir)) {
			this.hidden.add(row.id);
			return;
		}
		// A model a person chose over HTTP, kept beside the Trace: the Session goes on with it after a restart.
		const chosen = readChosenModel(this.host.home, row.id);
		const shown = chosen === undefined ? row : { ...row, model: chosen.model };
		this.sessions.set(row.id, new HostedSession(shown, this.hostFor(row.id)));
	}

	/**
	 * The host context a Session is made with: the same, but its agent comes on the model a person
	 * chose for it (`setModel`), read again each time the Session loads.
	 */
	private hostFor(id: string): HostContext {
		const pool = this.host.agents;
		const home = this.host.home;
		const agents: AgentPool = Object.create(pool, {
			get: { value: (agentId: string) => pool.get(agentId, readChosenModel(home, id)?.name) },
		});
		return Object.create(this.host, { agents: { value: agents } }) as HostContext;
	}

	/**
	 * `PATCH /chat/sessions/:id { model }`: the Session's next Tasks run on configured model `name`
	 * (core's `modelName`, as the CLI's /model). 400 for a name not configured, 409 while a Task
	 * runs (here or in another process). Kept beside the Trace, so it holds after a restart.
	 */
	async setModel(hosted: HostedSession, name: string): Promise<void> {
		const chosen = this.host.agents.switchableModel(name);
		if (hosted.running || (await this.host.coordinator.runsElsewhere(hosted.id)))
			throw new HttpError("session_busy", `session ${hosted.id}: a Task is running; switch models once it has ended`);
		writeChosenModel(this.host.home, hosted.id, chosen);
		hosted.row = { ...hosted.row, model: chosen.model };
		hosted.reloadOnNextTask();
		hosted.statusChanged();
	}

	/** A new Session; `workspaceRoot` is the server's root that holds it (where its AGENTS.md walk starts). */
	async create(agentId: string, workspaceDir: string, workspaceRoot?: string): Promise<HostedSession> {
		this.host.agents.check(agentId);
		const agent = await this.host.agents.get(agentId);
		return this.add(
			agentId,
			await agent.createSession({ workspaceDir, ...(workspaceRoot === undefined ? {} : { workspaceRoot }) }),
		);
	}

	/**
	 * A fork of Session `parentId` before the person's message `seq` (see Agent.forkSession), and
	 * what of the parent's files its new folder did not get.
	 */
	async fork(
		parent: HostedSession,
		seq: number,
		workspaceDir?: string,
	): Promise<{ fork: HostedSession; leftOut: readonly LeftOutFile[] }> {
		const agent = await this.host.agents.get(parent.row.agentId);
		const session = await agent.forkSession(parent.id, seq, workspaceDir === undefined ? {} : { workspaceDir });
		return { fork: await this.add(parent.row.agentId, session), leftOut: session.leftOut };
	}

	private async add(agentId: string, session: Session): Promise<HostedSession> {
		const now = Date.now();
		const row: StoredSession = {
			id: session.id,
			agentId,
			model: this.host.sessions.latestHeader(session.id)?.model ?? "unknown",
			workspaceDir: session.workspaceDir,
			title: null,
			createdAt: now,
			updatedAt: now,
			lockCredential: null,
		};
		await this.host.store.putSession(row);
		await this.host.coordinator.created(row.id);
		const hosted = new HostedSession(row, this.hostFor(row.id), session);
		this.sessions.set(row.id, hosted);
		hosted.statusChanged();
		return hosted;
	}

	/**
	 * Makes sure a Session another process created is known here; a no-op for one it knows.
	 * Routes call `get` after it (see routes/adopt.ts).
	 */
	async adopt(id: string): Promise<void> {
		if (this.sessions.has(id) || this.hidden.has(id)) return;
		const row = await this.host.coordinator.madeElsewhere(id);
		if (row !== undefined) this.admit(row);
	}

	/** The Session of a workflow another process started is known here (see `adopt`). */
	async adoptWorkflowSession(workflowId: string): Promise<void> {
		const sessionId = await this.host.coordinator.workflowSessionElsewhere(workflowId);
		if (sessionId !== undefined) await this.adopt(sessionId);
	}

	/** The index as the store has it (other processes on it may have created or deleted Sessions). */
	private async sync(): Promise<void> {
		const rows = await this.host.store.listSessions();
		const ids = new Set(rows.map((row) => row.id));
		for (const row of rows) this.admit(row);
		for (const [id, hosted] of this.sessions) if (!ids.has(id) && !hosted.running) this.sessions.delete(id);
	}

	get(id: string): HostedSession {
		const hosted = this.sessions.get(id);
		if (hosted === undefined) throw notFound(`session ${id}`);
		return hosted;
	}

	/** The Session if this process hosts it (no 404). */
	find(id: string): HostedSession | undefined {
		return this.sessions.get(id);
	}

	all(): HostedSession[] {
		return [...this.sessions.values()];
	}

	async summaries(): Promise<SessionSummary[]> {
		await this.sync();
		const elsewhere = (await this.host.coordinator.held()).sessions;
		const usage = new Map<string, Usage>();
		for (const sum of await this.host.store.usageSums({}, "session")) {
			usage.set(sum.key, addUsage(usage.get(sum.key) ?? emptyUsage(), sum));
		}
		const summaries: SessionSummary[] = [];
		for (const hosted of this.all()) {
			const busyElsewhere = elsewhere.has(hosted.id) ? await this.statusElsewhere(hosted) : undefined;
			summaries.push(summarize(hosted, usage.get(hosted.id) ?? emptyUsage(), busyElsewhere));
		}
		return summaries.sort((a, b) => b.updatedAt - a.updatedAt);
	}

	/**
	 * The status of a Session whose Task another live process runs, as the store has it: waiting
	 * on a person while one of its confirmations is pending, as on the process running it.
	 */
	private async statusElsewhere(hosted: HostedSession): Promise<SessionStatus | undefined> {
		if (hosted.running) return undefined;
		const pending = await this.host.store.pendingConfirmations(hosted.id);
		return pending.length > 0 ? "waiting_approval" : "busy";
	}

	async summary(id: string): Promise<SessionSummary> {
		const hosted = this.get(id);
		const usage = emptyUsage();
		for (const sum of await this.host.store.usageSums({ sessionId: id }, "session")) addUsage(usage, sum);
		const elsewhere = await this.host.coordinator.runsElsewhere(id);
		return summarize(hosted, usage, elsewhere ? await this.statusElsewhere(hosted) : undefined);
	}

	/** Aborts its Task, removes its Trace files and its index row; its usage rows stay (billing history). */
	async delete(id: string): Promise<void> {
		this.get(id);
		// A Task another process runs stops first (and writes its last lines) before anything goes.
		await this.host.coordinator.stopElsewhere(id);
		await this.forget(id);
		await this.host.coordinator.deleteSession(id);
		await this.host.store.deleteSession(id);
		this.host.bus.publish({ type: "session_deleted", sessionId: id });
	}

	/**
	 * Another process deleted the Session (its rows and the database's Trace are gone): this
	 * process's copy goes too, readers here included.
	 */
	/**
	 * After this process was cut off from the others (its bus reconnected): each Session it still
	 * hosts that the store no longer holds was deleted meanwhile, and is forgotten here as its
	 * `session_deleted` would have had it (its readers' streams end, its files here go).
	 */
	async forgetDeletedMeanwhile(): Promise<void> {
		const ids = new Set((await this.host.store.listSessions()).map((row) => row.id));
		for (const id of [...this.sessions.keys()]) if (!ids.has(id)) await this.deletedElsewhere(id);
	}

	deletedElsewhere(id: string): Promise<void> {
		this.host.coordinator.forget(id);
		return this.forget(id);
	}

	/** This process's part of a deletion: the Task here aborted, readers ended, the files here gone. */
	private async forget(id: string): Promise<void> {
		const hosted = this.sessions.get(id);
		if (hosted === undefined) return;
		this.sessions.delete(id);
		await hosted.close(new HostStop("its Session was deleted"));
		hosted.endReaders();
		await hosted.deleteFiles();
	}

	/** A credential changed: Sessions whose model sends it are unlocked and load it for their next request. */
	async credentialUpdated(name: string): Promise<void> {
		this.host.bus.publish({ type: "credential_updated", name });
		await this.credentialApplied(name);
	}

	/** Another process stored a new value: this one reads it from the store, then as `credentialUpdated`. */
	async credentialUpdatedElsewhere(name: string): Promise<void> {
		const value = (await this.host.store.credentials()).get(name);
		if (value !== undefined) this.host.credentials.set(name, value);
		await this.credentialApplied(name);
	}

	private async credentialApplied(name: string): Promise<void> {
		for (const hosted of this.sessions.values()) {
			if (!hosted.usesCredential(name)) continue;
			hosted.reloadOnNextTask();
			if (hosted.lock !== null) await hosted.setLock(null);
		}
	}

	/** Shutdown: every running Task aborted (its Trace flushed), every Session closed. */
	async close(): Promise<void> {
		await Promise.all(this.all().map((hosted) => hosted.close()));
	}
}

/** `elsewhere`: the status of the Task another server process on the database runs, if one does. */
function summarize(hosted: HostedSession, usage: Usage, elsewhere?: SessionStatus): SessionSummary {
	const { row } = hosted;
	const parent = hosted.parent();
	return {
		id: row.id,
		title: row.title,
		agentId: row.agentId,
		model: row.model,
		workspaceDir: row.workspaceDir,
		status: hosted.status === "idle" && elsewhere !== undefined ? elsewhere : hosted.status,
		lock: hosted.lock,
		createdAt: row.createdAt,
		updatedAt: row.updatedAt,
		usage,
		...(parent === undefined ? {} : { parent }),
	};
}

/** The index row of a Session found on the home (made by the CLI). */
function rowOf(summary: TraceSummary): StoredSession {
	return {
		id: summary.sessionId,
		agentId: summary.agentId,
		model: summary.model,
		workspaceDir: summary.workspaceDir,
		title: summary.title ?? null,
		createdAt: Date.parse(summary.createdAt),
		updatedAt: Date.parse(summary.updatedAt),
		lockCredential: null,
	};
}
