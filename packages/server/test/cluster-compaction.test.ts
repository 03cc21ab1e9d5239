import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { readTrace, sessionDir } from "@omniloop/core/internal";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { clusterProject, collectMessages, createSession, type ServerProcess } from "./cluster-processes.js";
import { eventually, messagesOf, readFrames } from "./harness.js";

const LEASE_MS = 2500;

/** The lock a test holds while the Trace uploads wait (any number, one per database). */
const UPLOADS_LOCK = 7024;

/**
 * From here the Trace uploads wait — every insert into `trace_chunks` but the event log's own
 * writer's — until `release`: the process dies with Trace lines the database never got.
 */
async function stallTraceUploads(database: string) {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	await client.query(`create function stall_uploads() returns trigger language plpgsql as $$
		begin
			if current_setting('application_name') <> 'omniloop-event-writer' then
				perform pg_advisory_xact_lock_shared(${UPLOADS_LOCK});
			end if;
			return new;
		end $$`);
	await client.query("select pg_advisory_lock($1)", [UPLOADS_LOCK]);
	await client.query(
		"create trigger stall_uploads before insert on trace_chunks for each row execute function stall_uploads()",
	);
	return {
		async release() {
			// The dead process's uploads, still waiting on the lock, end as its connections would.
			await client.query(
				`select pg_terminate_backend(pid) from pg_stat_activity
				where pid <> pg_backend_pid() and datname = current_database() and wait_event_type = 'Lock'`,
			);
			await client.query("drop trigger stall_uploads on trace_chunks");
			await client.query("select pg_advisory_unlock($1)", [UPLOADS_LOCK]);
			await client.end();
		},
	};
}

/** A Task on `server` as soon as the Session is free (another process's lease ran out): its messages. */
async function taskWhenFree(server: ServerProcess, id: string, text: string): Promise<OmniMessage[]> {
	const response = await eventually(async () => {
		const r = await server.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text } });
		return r.status === 200 ? r : undefined;
	}, 20_000);
	return messagesOf((await readFrames(response)).frames);
}

/** A Trace file's messages as a home holds it; reservations and headers aside. */
function traceMessages(home: string, id: string, name: string): OmniMessage[] {
	const path = join(sessionDir(home, id), name);
	return existsSync(path) ? readTrace(path).messages : [];
}

describe("a compaction on a process that dies before its Trace upload", () => {
	it("kill -9 right after a compaction, Trace uploads stalled: the taker has the dead process's Trace files, and its model the summary only", async () => {
		const p = await clusterProject({ leaseMs: LEASE_MS });
		const [homeA, homeB] = [p.homeOf("a"), p.homeOf("b")];
		const [a, b] = await Promise.all([p.serve(homeA), p.serve(homeB)]);
		const id = await createSession(a);
		p.provider.enqueue({ text: "before-the-compaction" });
		await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "first" } }));
		const stall = await stallTraceUploads(p.database);
		p.provider.enqueue({ text: "[summary]the-summary[/summary]" });
		const seen = collectMessages(await a.api(`/chat/sessions/${id}/events?after=0`));
		collectMessages(await a.api(`/chat/sessions/${id}/compact`, { method: "POST" }));
		// A viewer has the summary: its row is committed. A's Trace upload waits; then A dies.
		await eventually(() =>
			seen.some((m) => m.type === "user_text" && m.text.includes("the-summary")) ? true : undefined,
		);
		await a.kill();
		await stall.release();

		p.provider.enqueue({ text: "after" });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		const request = p.provider.requests.at(-1)?.rawBody ?? "";
		expect(request).toContain("the-summary");
		expect(request).not.toContain("before-the-compaction");
		// B's files begin with what A's held when it died (B went on in the newest one).
		for (const name of ["trace.jsonl", "trace_002.jsonl"]) {
			const onA = traceMessages(homeA, id, name);
			expect(onA.length, name).toBeGreaterThan(0);
			expect(traceMessages(homeB, id, name).slice(0, onA.length), name).toEqual(onA);
		}
		expect(traceMessages(homeB, id, "trace.jsonl").at(-1)).toMatchObject({ type: "compaction_end", status: "ok" });
	}, 60_000);

	it("a discard compaction on one process, the next Task on another: its context holds nothing from before", async () => {
		const p = await clusterProject({ leaseMs: LEASE_MS });
		const config = join(p.home, "system_config.yaml");
		writeFileSync(config, `${readFileSync(config, "utf8")}compaction:\n  mode: discard\n`);
		const [a, b] = await Promise.all([p.serve(p.homeOf("a")), p.serve(p.homeOf("b"))]);
		const id = await createSession(a);
		p.provider.enqueue({ text: "before-the-compaction" });
		await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "first" } }));
		const compacted = messagesOf(
			(await readFrames(await a.api(`/chat/sessions/${id}/compact`, { method: "POST" }))).frames,
		);
		expect(compacted.find((m) => m.type === "compaction_end")).toMatchObject({ status: "ok" });
		p.provider.enqueue({ text: "after" });
		const onB = await taskWhenFree(b, id, "on b");
		expect(onB.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		const request = p.provider.requests.at(-1)?.rawBody ?? "";
		expect(request).toContain("on b");
		expect(request).not.toContain("before-the-compaction");
	}, 60_000);
});
