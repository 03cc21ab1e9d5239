import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { EVENT_WRITER_APPLICATION } from "../src/cluster/events/event-log.js";
import {
	collectMessages,
	createSession,
	type ServerProcess,
	sessionSummary,
	shellAllowedProject,
	taskWhenFree,
} from "./cluster-processes.js";
import { eventually, isType, onCleanup, sseReader } from "./harness.js";
import { stallInserts } from "./pg-faults.js";

const LEASE_MS = 2500;

/** Three homes (three machines) on one Postgres; the default agent runs shell calls without asking. */
const project = () => shellAllowedProject({ leaseMs: LEASE_MS });

const shellCall = (command: string) => ({ name: "shell", arguments: { command } });

async function history(server: ServerProcess, id: string): Promise<OmniMessage[]> {
	return (await sessionSummary(server, id)).messages;
}

async function status(server: ServerProcess, id: string): Promise<string> {
	return (await sessionSummary(server, id)).session.status;
}

/** The Session's event-log rows as the database holds them, in seq order. */
async function rows(database: string, id: string): Promise<{ seq: number; epoch: number; body: OmniMessage }[]> {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	onCleanup(() => client.end());
	const result = await client.query<{ seq: string; epoch: string; body: string }>(
		"select seq, epoch, body from session_events where session_id = $1 order by seq",
		[id],
	);
	return result.rows.map((r) => ({ seq: Number(r.seq), epoch: Number(r.epoch), body: JSON.parse(r.body) }));
}

function expectOneOutputPerCall(messages: readonly OmniMessage[]): void {
	const outputs = new Map<string, number>();
	for (const m of messages) if (m.type === "tool_call_output") outputs.set(m.callId, (outputs.get(m.callId) ?? 0) + 1);
	for (const [callId, count] of outputs) expect({ callId, count }).toEqual({ callId, count: 1 });
}

describe("fencing: a process that lost a Session's lease does nothing more for it", () => {
	it("SIGSTOP past the lease, then SIGCONT: the paused process writes nothing after B took over, runs no tool, makes no model request", async () => {
		const p = await project();
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		// A's model streams slowly, then calls the shell: A is paused in the middle of it.
		p.provider.enqueue({
			text: Array.from({ length: 30 }, () => "a "),
			chunkDelayMs: 60,
			toolCalls: [shellCall("echo from-a >> marker.txt")],
		});
		// Were A to go on, its next request would find a reply.
		p.provider.enqueue({ text: "a again" });
		const viewer = sseReader(await a.api(`/chat/sessions/${id}/events?after=0`));
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "on a" },
			headers: { prefer: "respond-async" },
		});
		await viewer.until(isType("partial_text"));
		a.pause();
		onCleanup(() => a.resume());
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		const requestsBefore = p.provider.requests.length;
		a.resume();
		// A's Task ends on A (aborted there): it no longer shows it running.
		await eventually(async () => ((await status(a, id)) === "idle" ? true : undefined), 20_000);

		expect(existsSync(join(p.root, "marker.txt"))).toBe(false);
		expect(p.provider.requests.length).toBe(requestsBefore);
		const log = await rows(p.database, id);
		const types = log.map((r) => r.body.type);
		expect(types).not.toContain("tool_call");
		expect(types.filter((t) => t === "done")).toHaveLength(1);
		// In seq order, each row's epoch is at least the one before: nothing of an older claim after a newer one.
		const epochs = log.map((r) => r.epoch);
		expect(epochs).toEqual([...epochs].sort((x, y) => x - y));
		const seqs = (await history(b, id)).map((m) => m.seq);
		expect(new Set(seqs).size).toBe(seqs.length);
		expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
		await viewer.close().catch(() => {});
	}, 60_000);
});

/**
 * Holds an exclusive lock on `tables`, as a database that stalls: writes to them wait (reads go
 * on). `release` first ends the connections left waiting by a process that was killed meanwhile.
 */
async function stallWrites(database: string, tables: readonly string[]) {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	await client.query("begin");
	await client.query(`lock table ${tables.join(", ")} in exclusive mode`);
	return {
		async release() {
			await client.query(
				`select pg_terminate_backend(pid) from pg_stat_activity
				where pid <> pg_backend_pid() and datname = current_database() and wait_event_type = 'Lock'`,
			);
			await client.query("commit");
			await client.end();
		},
	};
}

/** How many messages the process's Sessions have emitted (its /metrics). */
async function emitted(server: ServerProcess): Promise<number> {
	const text = await (await server.api("/metrics")).text();
	return Number(/^omniloop_messages_emitted_total (\d+)/m.exec(text)?.[1] ?? 0);
}

describe("the database is the truth after kill -9", () => {
	it("a taker's first seq is above every seq a viewer of the dead process saw, its Trace and its rows stalled (seq from the database)", async () => {
		const p = await project();
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		p.provider.enqueue({ text: Array.from({ length: 1200 }, (_, i) => `${i % 10}`), chunkDelayMs: 2 });
		const seen = collectMessages(await a.api(`/chat/sessions/${id}/events?after=0`));
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "on a" },
			headers: { prefer: "respond-async" },
		});
		await eventually(() => (seen.some((m) => m.seq >= 990) ? true : undefined), 20_000);
		// The database stalls while A goes on past its first block of seqs; then A dies.
		const stall = await stallWrites(p.database, ["session_events", "trace_chunks"]);
		await eventually(async () => ((await emitted(a)) >= 1060 ? true : undefined), 20_000);
		await a.kill();
		const highest = Math.max(...seen.map((m) => m.seq));
		await stall.release();
		p.provider.enqueue({ text: "on b" });
		const onB = await taskWhenFree(b, id, "on b");
		expect((onB[0] as OmniMessage).seq).toBeGreaterThan(highest);
		// Bounded: the taker skips no more than a block.
		expect((onB[0] as OmniMessage).seq).toBeLessThan(highest + 1024);
	}, 60_000);

	it("a call that finished on the dead process keeps its one output: the taker rebuilds from the event log, not a stale Trace", async () => {
		const p = await project();
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		p.provider.enqueue(
			{ toolCalls: [shellCall("echo ran >> marker.txt")] },
			{ text: ["thinking"], fault: { kind: "stall", afterEvents: 2 } },
		);
		const seen = collectMessages(await a.api(`/chat/sessions/${id}/events?after=0`));
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "on a" },
			headers: { prefer: "respond-async" },
		});
		await eventually(() => (seen.some((m) => m.type === "tool_call_output") ? true : undefined), 20_000);
		// A's Trace uploads stall from here (its rows do not): A dies before its Trace shows the output.
		const stall = await stallWrites(p.database, ["trace_chunks"]);
		await eventually(() => (p.provider.requests.length === 2 ? true : undefined), 20_000);
		await a.kill();
		await stall.release();
		p.provider.enqueue({ text: "on b" });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done" });
		const all = await history(b, id);
		expectOneOutputPerCall(all);
		expect(all.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "ok" });
		// What B's model was told of the call is what ran, not "interrupted".
		expect(p.provider.requests.at(-1)?.rawBody).not.toContain("[interrupted");
		expect(readFileSync(join(p.root, "marker.txt"), "utf8")).toBe("ran\n");
	}, 60_000);
	it("a tool starts only once its tool_start row is committed: kill -9 while that row waits, and the call never ran", async () => {
		const p = await project();
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		p.provider.enqueue({ toolCalls: [shellCall("echo ran >> marker.txt")] }, { text: "after the call" });
		const stall = await stallInserts(p.database, "session_events", "new.body::jsonb->>'type' = 'tool_start'");
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "on a" },
			headers: { prefer: "respond-async" },
		});
		await eventually(async () => ((await stall.waiting(EVENT_WRITER_APPLICATION)) ? true : undefined));
		await a.kill();
		await stall.release();
		// The event log never got A's tool_start, so the call never started there; B's model is told it did not run.
		p.provider.enqueue({ text: "on b" });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done" });
		expectOneOutputPerCall(await history(b, id));
		expect(existsSync(join(p.root, "marker.txt"))).toBe(false);
	}, 60_000);
	it("kill -9 while its usage row waits on a lock: usage rows still equal token_usage events (one statement writes both)", async () => {
		const p = await project();
		const a = await p.serve(p.homeOf("a"));
		const id = await createSession(a);
		p.provider.enqueue({ text: "hello" });
		const admin = new pg.Client({ connectionString: p.database });
		const watcher = new pg.Client({ connectionString: p.database });
		await Promise.all([admin.connect(), watcher.connect()]);
		onCleanup(() => admin.end());
		onCleanup(() => watcher.end());
		// Every write into usage_rows waits until this transaction ends.
		await admin.query("begin");
		await admin.query("lock table usage_rows in share mode");
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "go" },
			headers: { prefer: "respond-async" },
		});
		// Until the process is stuck: its token_usage row committed without its usage row, or the
		// event log's writer itself waiting on the lock (the usage row is part of its statement).
		// Read outside the locking transaction, which would keep one snapshot of pg_stat_activity.
		await eventually(async () => {
			const { rows } = await watcher.query<{ events: number; writer: number }>(
				`select (select count(*)::int from session_events where session_id = $1 and body::jsonb->>'type' = 'token_usage') as events,
					(select count(*)::int from pg_stat_activity where datname = current_database() and application_name = 'omniloop-event-writer' and wait_event_type = 'Lock') as writer`,
				[id],
			);
			const row = rows[0];
			return row !== undefined && (row.events > 0 || row.writer > 0) ? true : undefined;
		});
		await a.kill();
		// Its connections die with it, as with the machine (Postgres would go on with a statement
		// waiting on a lock for a client already gone).
		const adminPid = (await admin.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]?.pid;
		await watcher.query(
			"select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and pid <> $1",
			[adminPid],
		);
		await admin.query("commit");
		const events = await admin.query(
			"select 1 from session_events where session_id = $1 and body::jsonb->>'type' = 'token_usage'",
			[id],
		);
		const usage = await admin.query("select 1 from usage_rows where session_id = $1", [id]);
		expect(usage.rowCount).toBe(events.rowCount);
	});
});
