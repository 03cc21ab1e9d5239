import type { OmniMessage } from "@omniloop/core";
import type pg from "pg";
import { expect } from "vitest";
import type { ServerProcess } from "../cluster-processes.js";
import { eventually } from "../harness.js";
import { type Audit, ROLES } from "./audit.js";

export type FaultKind = "kill" | "stop" | "none";

/** Three processes on one database, each as a role of its own; a fault takes one down and brings it back. */
export class Cluster {
	/** The processes neither killed nor stopped (the test sends actions only to these). */
	readonly down = new Set<number>();
	private random: number;

	constructor(
		readonly servers: ServerProcess[],
		private readonly restart: (index: number) => Promise<ServerProcess>,
		readonly audit: Audit,
		readonly db: pg.Client,
		readonly seed: number,
		/** The workspace the shell calls write marker.txt in. */
		readonly root: string,
	) {
		this.random = seed;
	}

	/** A number below n from the seeded generator (so a failing seed replays the same choices). */
	pick = (n: number): number => {
		this.random = (this.random * 1103515245 + 12345) % 2 ** 31;
		return Math.floor((this.random / 2 ** 31) * n);
	};

	choose<T>(values: readonly T[]): T {
		return values[this.pick(values.length)] as T;
	}

	/** A random process that is up, other than `except`. */
	up(except: number[] = []): number {
		const candidates = [0, 1, 2].filter((i) => !this.down.has(i) && !except.includes(i));
		return this.choose(candidates);
	}

	server(index: number): ServerProcess {
		return this.servers[index] as ServerProcess;
	}

	indexOfRole(role: string | undefined): number {
		return ROLES.indexOf(role as (typeof ROLES)[number]);
	}

	/**
	 * kill -9 or SIGSTOP of process `index`; the returned heal restarts it (kill) or, a lease and
	 * more later, SIGCONTs it and checks that it wrote nothing after its resume for what it lost.
	 */
	async fault(index: number, kind: FaultKind): Promise<() => Promise<void>> {
		if (kind === "none") return async () => {};
		this.down.add(index);
		if (kind === "kill") {
			await this.server(index).kill();
			return async () => {
				this.servers[index] = await this.restart(index);
				this.down.delete(index);
			};
		}
		this.server(index).pause();
		return async () => {
			const since = await this.audit.now();
			this.server(index).resume();
			this.down.delete(index);
			this.resumed.push({ role: ROLES[index] as string, since });
		};
	}

	/** The stopped processes' resumes, checked at the end of the round (after every process went idle). */
	readonly resumed: { role: string; since: number }[] = [];

	async checkNoWriteAfterLoss(at: string): Promise<void> {
		for (const { role, since } of this.resumed.splice(0)) {
			const writes = await this.audit.writesAfterLoss(role, since);
			expect(writes, `${at}: ${role} wrote after its resume for what another process had claimed`).toEqual([]);
		}
	}

	/** Waits until no process runs the Session (its status idle everywhere that is up). */
	async idleEverywhere(id: string): Promise<void> {
		for (const [index, server] of this.servers.entries()) {
			if (this.down.has(index)) continue;
			await eventually(async () => {
				const r = await server.api(`/chat/sessions/${id}`);
				const body = (await r.json()) as { session: { status: string } };
				return body.session.status === "idle" ? true : undefined;
			}, 30_000);
		}
	}

	/** The Session's history as the event log holds it (the complete messages). */
	async historyOf(id: string): Promise<OmniMessage[]> {
		const r = await this.server(this.up()).api(`/chat/sessions/${id}`);
		return ((await r.json()) as { messages: OmniMessage[] }).messages;
	}
}
