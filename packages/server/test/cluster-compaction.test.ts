import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { readTrace, sessionDir } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { EVENT_WRITER_APPLICATION } from "../src/cluster/events/event-log.js";
import { clusterProject, collectMessages, createSession, type ServerProcess } from "./cluster-processes.js";
import { eventually, messagesOf, readFrames } from "./harness.js";
import { stallInserts } from "./pg-faults.js";

const LEASE_MS = 2500;

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
		// From here A's Trace uploads wait (the event log's writer goes on).
		const stall = await stallInserts(
			p.database,
			"trace_chunks",
			`current_setting('application_name') <> '${EVENT_WRITER_APPLICATION}'`,
		);
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
