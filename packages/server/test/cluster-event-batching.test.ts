import type { AssistantText, OmniMessage, PartialText } from "@omniloop/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { EVENT_WRITER_APPLICATION, EventLogWriter } from "../src/cluster/events/event-log.js";
import { openPostgresStore } from "../src/store/postgres.js";
import { eventually, onCleanup } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

const SESSION = "s-batching";

/**
 * A migrated database where SESSION's lease has epoch 1, an event log writer on it, and a count
 * of the INSERT statements that reach `session_events` (a statement trigger: one per INSERT,
 * whatever its rows).
 */
async function writerOn(batchMs: number) {
	const url = await freshDatabase();
	const postgres = await openPostgresStore(url);
	onCleanup(() => postgres.store.close());
	await postgres.pool.query(
		"insert into session_leases (session_id, owner, expires_at, epoch) values ($1, 'test', $2, 1)",
		[SESSION, Date.now() + 600_000],
	);
	await postgres.pool.query(`create table statements (n int not null); insert into statements values (0);
		create function count_statement() returns trigger language plpgsql as $$
			begin update statements set n = n + 1; return null; end $$;
		create trigger count_statement after insert on session_events
			for each statement execute function count_statement();`);
	const errors: unknown[] = [];
	const waiting: (() => void)[] = [];
	const writer = new EventLogWriter(postgres.pool, url, batchMs, (error) => {
		errors.push(error);
		for (const reported of waiting.splice(0)) reported();
	});
	onCleanup(() => writer.close());
	const admin = new pg.Client({ connectionString: url });
	await admin.connect();
	onCleanup(() => admin.end());
	return {
		url,
		writer,
		errors,
		admin,
		/** Settles at the writer's next report of a failure. */
		nextReport: () => new Promise<void>((reported) => waiting.push(reported)),
		statements: async () => (await admin.query<{ n: number }>("select n from statements")).rows[0]?.n,
		rows: async () => Number((await admin.query("select count(*) from session_events")).rows[0].count),
	};
}

const partial = (seq: number): PartialText => ({ type: "partial_text", id: "m", seq, ts: Date.now(), delta: "x " });
const complete = (seq: number): AssistantText => ({
	type: "assistant_text",
	id: "m",
	seq,
	ts: Date.now(),
	text: "done",
});

/** Resolves once the row is committed (the writer's `durable` callback). */
function appendDurably(writer: EventLogWriter, message: OmniMessage): Promise<void> {
	return new Promise((durable) => writer.append(SESSION, message, 1, durable));
}

describe("the event log writer batches a Session's partials (docs/cluster.md)", () => {
	it("a fast stream makes one INSERT per batch, not one per round trip; every row lands", async () => {
		const batchMs = 25;
		const { writer, statements, rows, errors } = await writerOn(batchMs);
		const started = performance.now();
		const landed: Promise<void>[] = [];
		let seq = 0;
		// A token about every millisecond for ~300 ms: the database answers far faster than a batch.
		while (performance.now() - started < 300) {
			landed.push(appendDurably(writer, partial(++seq)));
			await new Promise((next) => setTimeout(next, 1));
		}
		landed.push(appendDurably(writer, complete(++seq)));
		await Promise.all(landed);
		const elapsed = performance.now() - started;
		expect(errors).toEqual([]);
		expect(await rows()).toBe(seq);
		// One INSERT per batch of the stream's span, and one for the complete message at its end.
		expect(await statements()).toBeLessThanOrEqual(Math.ceil(elapsed / batchMs) + 1);
	});

	it("a complete message does not wait for the partials' batch: it takes them along at once", async () => {
		// A batch longer than the test's timeout: only an immediate write lets this test end.
		const { writer, statements } = await writerOn(600_000);
		const first = appendDurably(writer, partial(1));
		await appendDurably(writer, complete(2));
		await first;
		expect(await statements()).toBe(1);
	});

	it("after a failed write, the backoff holds: a complete message that comes meanwhile waits for it", async () => {
		const { writer, errors, admin, nextReport } = await writerOn(10);
		// The first INSERT fails (a sequence counts attempts: it is not rolled back with them).
		await admin.query(`create sequence attempts;
			create function fail_first() returns trigger language plpgsql as $$
				begin if nextval('attempts') = 1 then raise exception 'the first write fails'; end if; return null; end $$;
			create trigger fail_first before insert on session_events for each statement execute function fail_first();`);
		const failure = nextReport();
		const first = appendDurably(writer, complete(1));
		await failure;
		const failedAt = performance.now();
		const second = appendDurably(writer, complete(2));
		await Promise.all([first, second]);
		// RETRY_MS (200) after the failure, less a margin for the clock: not at once, as a new row would ask.
		expect(performance.now() - failedAt).toBeGreaterThanOrEqual(150);
		expect(errors).toHaveLength(1);
		expect(Number((await admin.query("select last_value from attempts")).rows[0].last_value)).toBe(2);
	});

	it("drain sends the buffered partials at once", async () => {
		const { writer, rows } = await writerOn(600_000);
		writer.append(SESSION, partial(1), 1, () => {});
		writer.append(SESSION, partial(2), 1, () => {});
		await writer.drain(SESSION);
		expect(await rows()).toBe(2);
	});

	it("drain ends when the Session's rows are refused: those buffered behind the refused batch are let go too", async () => {
		const { url, writer, rows, admin } = await writerOn(10);
		// Another process claims the Session: its upsert locks the lease row as a key update (as
		// Leases.claim does) and takes epoch 2, and the writer's fenced INSERT waits for that commit.
		const claim = new pg.Client({ connectionString: url });
		await claim.connect();
		onCleanup(() => claim.end());
		await claim.query("begin");
		await claim.query(
			`insert into session_leases (session_id, owner, expires_at, epoch) values ($1, 'other', $2, 2)
			on conflict (session_id) do update set session_id = excluded.session_id, epoch = excluded.epoch`,
			[SESSION, Date.now() + 600_000],
		);
		writer.append(SESSION, complete(1), 1, () => {});
		await eventually(async () => {
			const { rows: waiting } = await admin.query(
				"select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
				[EVENT_WRITER_APPLICATION],
			);
			return waiting.length > 0 ? true : undefined;
		});
		// These come while the first batch is in flight: they wait in the buffer, behind it.
		writer.append(SESSION, complete(2), 1, () => {});
		writer.append(SESSION, complete(3), 1, () => {});
		const drained = writer.drain(SESSION);
		await claim.query("commit");
		await drained;
		expect(writer.wasRefused(SESSION, 1)).toBe(true);
		expect(await rows()).toBe(0);
	});
});
