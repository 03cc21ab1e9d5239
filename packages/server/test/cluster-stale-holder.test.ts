import pg from "pg";
import { describe, expect, it } from "vitest";
import { EVENT_WRITER_APPLICATION } from "../src/cluster/events/event-log.js";
import {
	clusterProject,
	collectMessages,
	createSession,
	type ServerProcess,
	sessionSummary,
	taskWhenFree,
} from "./cluster-processes.js";
import { eventually, onCleanup } from "./harness.js";
import { stallInserts } from "./pg-faults.js";

const LEASE_MS = 2500;

async function waitIdle(server: ServerProcess, id: string): Promise<void> {
	let status = "";
	await eventually(async () => {
		status = (await sessionSummary(server, id)).session.status;
		return status === "idle" ? true : undefined;
	}, 20_000).catch(() => {
		throw new Error(`session ${id} is still ${status} after 20 s, not idle`);
	});
}

/** Everything the database holds for the Session, in every table a process writes for it. */
async function snapshot(client: pg.Client, id: string): Promise<unknown> {
	const read = async (text: string) => (await client.query(text, [id])).rows;
	return {
		session: await read("select * from sessions where id = $1"),
		confirmations: await read("select * from confirmations where session_id = $1 order by correlation_id"),
		events: await read("select seq, epoch, partial, body from session_events where session_id = $1 order by seq"),
		usage: await read("select * from usage_rows where session_id = $1 order by seq"),
		trace: await read(
			`select name, "offset", epoch, md5(bytes) from trace_chunks where session_id = $1 order by name, "offset"`,
		),
		lease: await read("select * from session_leases where session_id = $1"),
	};
}

/** Posts a message on `server` without waiting for its Task. */
async function startTask(server: ServerProcess, id: string, text: string): Promise<void> {
	const response = await server.api(`/chat/sessions/${id}/messages`, {
		method: "POST",
		json: { text },
		headers: { prefer: "respond-async" },
	});
	expect(response.status).toBeLessThan(300);
}

describe("a process paused past its lease (SIGSTOP, then SIGCONT) after another took the Session", () => {
	it("its viewers get every message of the new holder's Task, each once, though it tried those seqs itself", async () => {
		const p = await clusterProject({ leaseMs: LEASE_MS });
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		const seen = collectMessages(await a.api(`/chat/sessions/${id}/events?after=0`));
		// A's partials wait in the database (never committed): A tries seqs that B then writes.
		const stall = await stallInserts(
			p.database,
			"session_events",
			`new.session_id = '${id}' and new.body::jsonb->>'type' = 'partial_text'`,
		);
		p.provider.enqueue({ text: Array.from({ length: 30 }, () => "a "), chunkDelayMs: 20 });
		await startTask(a, id, "on a");
		await eventually(async () => ((await stall.waiting(EVENT_WRITER_APPLICATION)) ? true : undefined));
		a.pause();
		onCleanup(() => a.resume());
		await stall.release();
		p.provider.enqueue({ text: Array.from({ length: 10 }, (_, i) => `b${i} `) });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done" });
		a.resume();
		await waitIdle(a, id);
		const bSeqs = new Set(onB.map((m) => m.seq));
		const ofB = (): string[] => seen.filter((m) => bSeqs.has(m.seq)).map((m) => `${m.seq} ${m.type}`);
		const expected = onB.map((m) => `${m.seq} ${m.type}`);
		// The viewer's stream is read as it comes: once A is idle its frames follow within moments.
		await eventually(() => (ofB().length >= expected.length ? true : undefined), 10_000).catch(() => {});
		expect(ofB()).toEqual(expected);
	}, 60_000);

	it("it writes nothing more for the Session in any table: no confirmation, no updated_at, no row", async () => {
		const p = await clusterProject({ leaseMs: LEASE_MS });
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		const admin = new pg.Client({ connectionString: p.database });
		await admin.connect();
		onCleanup(() => admin.end());
		// A's Task asks about a shell call, and A is paused while it waits for the answer.
		p.provider.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "echo from-a" } }] });
		await startTask(a, id, "on a");
		await eventually(async () => {
			const { rows } = await admin.query("select 1 from confirmations where session_id = $1", [id]);
			return rows.length > 0 ? true : undefined;
		}, 20_000);
		a.pause();
		onCleanup(() => a.resume());
		const updatedAt = async () =>
			(await admin.query<{ updated_at: string }>("select updated_at from sessions where id = $1", [id])).rows[0]
				?.updated_at;
		const beforeB = await updatedAt();
		p.provider.enqueue({ text: "on b" });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done" });
		// B's own last write (its Task's end, not awaited by its stream) is in before the snapshot.
		await eventually(async () => ((await updatedAt()) !== beforeB ? true : undefined));
		const before = await snapshot(admin, id);
		a.resume();
		await waitIdle(a, id);
		// Nothing A does on its way out is awaited by its status: each read of the tables for a
		// while after must still be the same (A's writes, before the fix, land within milliseconds).
		const until = Date.now() + 2_000;
		while (Date.now() < until) expect(await snapshot(admin, id)).toEqual(before);
	}, 60_000);
});
