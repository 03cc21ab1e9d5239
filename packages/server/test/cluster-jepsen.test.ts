import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import type { FakeReply, RecordedProviderRequest } from "@omniloop/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
	collectMessages,
	createSession,
	type ServerProcess,
	sessionSummary,
	shellAllowedProject,
} from "./cluster-processes.js";
import { eventually, onCleanup, readFrames } from "./harness.js";

/**
 * Jepsen-style: three processes on one Postgres, a chat Task per round whose shell call appends a
 * line unique to that call, and a fault per round — kill -9 of the process running it, SIGSTOP
 * past its lease then SIGCONT, or none — with a viewer on another process. Checked after every
 * round: no call ran twice, no call has two outputs, seq never repeats (viewer, history), the live
 * viewer's complete messages are the history's, no row from a claim after a later one, and usage
 * rows = token_usage events. OMNILOOP_JEPSEN_ROUNDS (default 6) for more.
 */
const ROUNDS = Number(process.env.OMNILOOP_JEPSEN_ROUNDS ?? 6);
const LEASE_MS = 2500;

type Fault = "kill" | "stop" | "none";

/** The model: a prompt's first request streams, then calls the shell (a line naming the request); every other one answers. */
function reply(request: RecordedProviderRequest, index: number): FakeReply {
	const fresh = !request.rawBody.includes('"role":"tool"') && request.rawBody.includes("go r");
	if (!fresh) return { text: `answer ${index}` };
	return {
		text: Array.from({ length: 30 }, () => "w "),
		chunkDelayMs: 15,
		toolCalls: [{ name: "shell", arguments: { command: `echo q${index} >> marker.txt` } }],
	};
}

describe("Jepsen-style: kill -9 and SIGSTOP of servers on one Postgres", () => {
	it(`${ROUNDS} rounds keep every promise`, { timeout: 60_000 + ROUNDS * 30_000 }, async () => {
		const project = await shellAllowedProject({ leaseMs: LEASE_MS });
		for (let i = 0; i < 40 * ROUNDS; i++) project.provider.enqueue(reply);
		const homes = ["a", "b", "c"].map((name) => project.homeOf(name));
		const servers = await Promise.all(homes.map((home) => project.serve(home)));
		const db = new pg.Client({ connectionString: project.database });
		await db.connect();
		onCleanup(() => db.end());
		let random = 7;
		const pick = (n: number) => {
			random = (random * 1103515245 + 12345) % 2 ** 31;
			return random % n;
		};

		for (let round = 0; round < ROUNDS; round++) {
			const runs = pick(3);
			const watches = (runs + 1 + pick(2)) % 3;
			const taker = 3 - runs - watches;
			const runner = servers[runs] as ServerProcess;
			const fault = (["kill", "stop", "none"] as const)[round % 3] as Fault;
			const id = await createSession(runner);
			const live = collectMessages(
				await (servers[watches] as ServerProcess).api(`/chat/sessions/${id}/events?after=0`),
			);
			await runner.api(`/chat/sessions/${id}/messages`, {
				method: "POST",
				json: { text: `go r${round}` },
				headers: { prefer: "respond-async" },
			});
			await eventually(() => (live.some((m) => m.type === "partial_text") ? true : undefined), 20_000);
			if (fault !== "none") {
				if (fault === "kill") await runner.kill();
				else runner.pause();
				const other = servers[taker] as ServerProcess;
				await eventually(async () => {
					const r = await other.api(`/chat/sessions/${id}/messages`, {
						method: "POST",
						json: { text: `then r${round}` },
					});
					if (r.status !== 200) return undefined;
					await readFrames(r);
					return true;
				}, 20_000);
				if (fault === "kill") servers[runs] = await project.serve(homes[runs]);
				else runner.resume();
			}
			// Every process is done with the Session: none runs it any more.
			for (const server of servers)
				await eventually(
					async () => ((await sessionSummary(server, id)).session.status === "idle" ? true : undefined),
					20_000,
				);
			await eventually(() => (live.some((m) => m.type === "done") ? true : undefined), 20_000);

			const history = (await sessionSummary(servers[watches] as ServerProcess, id)).messages;
			const seqs = history.map((m) => m.seq);
			expect(new Set(seqs).size, `round ${round}: seq repeats in the history`).toBe(seqs.length);
			expect(seqs, `round ${round}: history out of order`).toEqual([...seqs].sort((x, y) => x - y));
			const liveSeqs = live.map((m) => m.seq);
			expect(new Set(liveSeqs).size, `round ${round}: seq repeats in the viewer`).toBe(liveSeqs.length);
			// Replay = live: the viewer, there from the start, got of complete messages exactly what the history holds.
			const complete = live.filter((m) => !m.type.startsWith("partial_"));
			expect(complete, `round ${round}: the live viewer's messages are not the history`).toEqual(history);
			const outputs = new Map<string, number>();
			for (const m of history)
				if (m.type === "tool_call_output") outputs.set(m.callId, (outputs.get(m.callId) ?? 0) + 1);
			for (const [callId, count] of outputs) expect({ round, callId, count }).toEqual({ round, callId, count: 1 });
			const rows = await db.query<{ epoch: string }>(
				"select epoch from session_events where session_id = $1 order by seq",
				[id],
			);
			const epochs = rows.rows.map((r) => Number(r.epoch));
			expect(epochs, `round ${round}: a row written after a later claim`).toEqual([...epochs].sort((x, y) => x - y));
			const usage = await db.query("select 1 from usage_rows where session_id = $1", [id]);
			const tokenUsage = history.filter((m) => m.type === "token_usage").length;
			expect(usage.rowCount, `round ${round}: usage rows vs token_usage events`).toBe(tokenUsage);
			// A viewer reconnecting with Last-Event-ID on any process gets exactly what came after it.
			const from = history[Math.floor(history.length / 2)] as OmniMessage;
			const last = history.at(-1) as OmniMessage;
			const replay = messagesOfReplay(
				await (servers[pick(3)] as ServerProcess).api(`/chat/sessions/${id}/events`, {
					headers: { "last-event-id": String(from.seq) },
				}),
				last.seq,
			);
			expect(await replay, `round ${round}: replay after ${from.seq}`).toEqual(history.filter((m) => m.seq > from.seq));
			const lines = readMarker(project.root);
			expect(new Set(lines).size, `round ${round}: a call ran twice: ${lines.join(",")}`).toBe(lines.length);
		}
		// The calls of the rounds without a fault ran (each once).
		expect(readMarker(project.root).length).toBeGreaterThanOrEqual(Math.floor(ROUNDS / 3));
	});
});

/** A replay's messages up to `lastSeq` (the stream stays open for what comes next). */
async function messagesOfReplay(response: Response, lastSeq: number): Promise<OmniMessage[]> {
	const { frames } = await readFrames(response, (frame) => Number(frame.id ?? 0) >= lastSeq);
	return frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as OmniMessage);
}

function readMarker(root: string): string[] {
	try {
		return readFileSync(join(root, "marker.txt"), "utf8").trim().split("\n").filter(Boolean);
	} catch {
		return [];
	}
}
