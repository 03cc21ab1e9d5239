import type { OmniMessage } from "@omniloop/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { clusterProject } from "./cluster-processes.js";
import { onCleanup, writeFakeModelConfig } from "./harness.js";
import { openAudit, roleUrls } from "./jepsen/audit.js";
import { checkSession, readMarker } from "./jepsen/checks.js";
import { Cluster, type FaultKind } from "./jepsen/cluster.js";
import { markReply } from "./jepsen/model.js";
import { chatRound, type RoundResult, workflowRound } from "./jepsen/rounds.js";

/**
 * Jepsen-style (issue #24): three processes on one Postgres, each round a chat Task or a durable
 * workflow whose shell call appends a line unique to the call to marker.txt, and a fault — kill -9
 * or SIGSTOP past the lease then SIGCONT, or none — at a random point (a partial, right after
 * tool_start, while the tool runs, during a model request, at Task end; for a workflow while it
 * waits on a person, right after the approval, while the approved call runs). Viewers reconnect
 * with Last-Event-ID every 15–150 ms on random processes throughout. Checked after every round: no
 * call ran twice, no call has two outputs, seq never repeats in any viewer or the history, replay
 * = live, no write from a process after it lost its lease (on every table, jepsen/audit.ts), usage
 * rows = token_usage events. OMNILOOP_JEPSEN_ROUNDS (default 8) for more, OMNILOOP_JEPSEN_SEED to
 * replay a failure (the seed is in every failure's message).
 */
const ROUNDS = Number(process.env.OMNILOOP_JEPSEN_ROUNDS ?? 8);
const SEED = Number(process.env.OMNILOOP_JEPSEN_SEED ?? Math.floor(Math.random() * 2 ** 31));
const LEASE_MS = 2500;

describe("Jepsen-style: kill -9 and SIGSTOP of servers on one Postgres", () => {
	it(`${ROUNDS} rounds keep every promise (seed ${SEED})`, { timeout: 60_000 + ROUNDS * 60_000 }, async () => {
		const project = await clusterProject({ leaseMs: LEASE_MS });
		// Chat Tasks run shell calls without asking; the workflows' agent asks a person first.
		writeFakeModelConfig(project.root, project.provider.url, {
			defaultAgent: "approval: { shell: allow }",
			agents: ["asks: { model: main }"],
		});
		project.provider.enqueue(...Array.from({ length: 100 * ROUNDS }, () => markReply));
		const homes = ["a", "b", "c"].map((name) => project.homeOf(name));
		const urls = await roleUrls(project.database);
		const start = (index: number) => project.serve(homes[index], urls[index]);
		const servers = await Promise.all([0, 1, 2].map(start));
		const audit = await openAudit(project.database);
		const db = new pg.Client({ connectionString: project.database });
		await db.connect();
		onCleanup(() => db.end());
		const cluster = new Cluster(servers, start, audit, db, SEED, project.root);
		process.stderr.write(`cluster-jepsen: seed ${SEED} (OMNILOOP_JEPSEN_SEED=${SEED} replays it)\n`);

		for (let round = 0; round < ROUNDS; round++) {
			const kind = cluster.choose<FaultKind>(["kill", "stop", "kill", "stop", "none"]);
			const result: RoundResult =
				cluster.pick(3) === 0 ? await workflowRound(cluster, round, kind) : await chatRound(cluster, round, kind);
			const at = `seed ${SEED} round ${round} (${result.what})`;
			process.stderr.write(`cluster-jepsen: ${at}\n`);
			for (const { id, viewers } of result.sessions) {
				const history = await checkSession(
					at,
					db,
					cluster.server(cluster.up()),
					cluster.server(cluster.up()),
					id,
					viewers,
				);
				if (result.what.startsWith("workflow")) checkWorkflowCall(at, history, result.what);
			}
			const lines = readMarker(project.root);
			expect(new Set(lines).size, `${at}: a call ran twice: ${lines.join(",")}`).toBe(lines.length);
			await cluster.checkNoWriteAfterLoss(at);
		}
	});
});

/** The workflow ended completed, and its call has exactly one output. */
function checkWorkflowCall(at: string, history: OmniMessage[], what: string): void {
	expect(what, `${at}: the workflow did not complete`).toContain("ended completed");
	const calls = history.filter((m) => m.type === "tool_call");
	const outputs = history.filter((m) => m.type === "tool_call_output");
	expect(calls.length, `${at}: the workflow's calls`).toBe(1);
	expect(outputs.length, `${at}: the workflow's call's outputs`).toBe(1);
}
