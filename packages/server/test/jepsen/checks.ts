import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import type pg from "pg";
import { expect } from "vitest";
import { type ServerProcess, sessionSummary } from "../cluster-processes.js";
import { readFrames } from "../harness.js";
import type { Viewer } from "./viewers.js";

/** The lines of the workspace's marker.txt: one per shell call that ran. */
export function readMarker(root: string): string[] {
	try {
		return readFileSync(join(root, "marker.txt"), "utf8").trim().split("\n").filter(Boolean);
	} catch {
		return [];
	}
}

/**
 * Everything checked of one Session after a round (`at` names seed, round and fault): its history's
 * seqs never repeat, every viewer's seqs rose and its complete messages are the history, no call
 * has two outputs, the event log's and the Trace's rows were written under rising epochs, usage
 * rows are the token_usage events, and a replay from any point on any process is the history after it.
 */
export async function checkSession(
	at: string,
	db: pg.Client,
	server: ServerProcess,
	replayOn: ServerProcess,
	id: string,
	viewers: Viewer[],
): Promise<OmniMessage[]> {
	const history = (await sessionSummary(server, id)).messages;
	const seqs = history.map((m) => m.seq);
	expect(new Set(seqs).size, `${at}: seq repeats in the history: ${seqs.join(",")}`).toBe(seqs.length);
	expect(seqs, `${at}: history out of order`).toEqual([...seqs].sort((x, y) => x - y));
	const last = history.at(-1) as OmniMessage;
	for (const [n, viewer] of viewers.entries()) {
		await viewer.finish(last.seq);
		expect(viewer.errors, `${at}: viewer ${n} (${viewer.connections} connections) got seqs out of order`).toEqual([]);
		const complete = viewer.seen.filter((m) => !m.type.startsWith("partial_"));
		expect(complete, `${at}: viewer ${n}'s complete messages are not the history`).toEqual(history);
	}
	const outputs = new Map<string, number>();
	for (const m of history) if (m.type === "tool_call_output") outputs.set(m.callId, (outputs.get(m.callId) ?? 0) + 1);
	for (const [callId, count] of outputs) expect({ at, callId, count }).toEqual({ at, callId, count: 1 });

	const rows = await db.query<{ seq: string; epoch: string }>(
		"select seq, epoch from session_events where session_id = $1 order by seq",
		[id],
	);
	const epochs = rows.rows.map((r) => Number(r.epoch));
	expect(epochs, `${at}: an event-log row written after a later claim (by seq)`).toEqual(
		[...epochs].sort((x, y) => x - y),
	);
	const chunks = await db.query<{ name: string; epoch: string; offset: string }>(
		'select name, epoch, "offset" from trace_chunks where session_id = $1 order by name, "offset"',
		[id],
	);
	for (const name of new Set(chunks.rows.map((r) => r.name))) {
		const of = chunks.rows.filter((r) => r.name === name).map((r) => Number(r.epoch));
		expect(of, `${at}: a Trace chunk of ${name} written after a later claim (by offset)`).toEqual(
			[...of].sort((x, y) => x - y),
		);
	}
	const usage = await db.query<{ seq: string }>("select seq from usage_rows where session_id = $1 order by seq", [id]);
	const tokenUsage = history.filter((m) => m.type === "token_usage").map((m) => m.seq);
	expect(
		usage.rows.map((r) => Number(r.seq)),
		`${at}: usage rows' seqs vs token_usage events'`,
	).toEqual(tokenUsage);

	const from = history[Math.floor(history.length / 2)] as OmniMessage;
	const replay = await readFrames(
		await replayOn.api(`/chat/sessions/${id}/events`, { headers: { "last-event-id": String(from.seq) } }),
		(frame) => Number(frame.id ?? 0) >= last.seq,
	);
	const replayed = replay.frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as OmniMessage);
	expect(replayed, `${at}: replay after ${from.seq} on ${replayOn.origin}`).toEqual(
		history.filter((m) => m.seq > from.seq),
	);
	return history;
}
