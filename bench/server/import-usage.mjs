// What a server start pays to import the usage of Sessions whose Trace went on after the store
// last saw them (packages/server/src/host/trace-usage.ts): every Session here has long history the
// store already holds the usage of, and one new Task the CLI ran in-process after it.
//   node bench/server/import-usage.mjs [sessions] [files] [turns-per-file]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionStore } from "@omniloop/core";
import { importTraceUsage } from "../../packages/server/dist/host/trace-usage.js";
import { openStore } from "../../packages/server/dist/store/open-store.js";

const SESSIONS = Number(process.argv[2] ?? 200);
const FILES = Number(process.argv[3] ?? 5);
const TURNS = Number(process.argv[4] ?? 200);

const home = mkdtempSync(join(tmpdir(), "omniloop-import-usage-"));
const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 120 };

/** A turn as a Trace holds it: the model's text and its token_usage. */
function turnLines(seq, ts) {
	return [
		{ type: "assistant_text", id: `t${seq}`, ts, seq, text: "x".repeat(400) },
		{ type: "token_usage", id: `u${seq + 1}`, ts, seq: seq + 1, request: usage, session: usage },
	];
}

const { store } = await openStore(join(home, "omniloop.db"));
const rows = [];
for (let s = 0; s < SESSIONS; s++) {
	const id = `s${s}`;
	const dir = join(home, "sessions", id);
	mkdirSync(dir, { recursive: true });
	let seq = 1;
	const row = {
		id,
		agentId: "a",
		model: "m",
		workspaceDir: home,
		title: null,
		createdAt: 1,
		updatedAt: 1,
		lockCredential: null,
	};
	await store.putSession(row);
	for (let f = 1; f <= FILES; f++) {
		const header = {
			type: "trace_header",
			version: 1,
			sessionId: id,
			agentId: "a",
			file: f,
			createdAt: new Date(1).toISOString(),
			workspaceDir: home,
			model: "m",
			turnsBefore: 0,
			seqReserved: seq - 1,
		};
		const lines = [header];
		for (let t = 0; t < TURNS; t++, seq += 2) {
			const turn = turnLines(seq, 1000 + seq);
			lines.push(...turn);
			// The last turn of the last file is the CLI's in-process Task: the store has not seen it.
			if (!(f === FILES && t === TURNS - 1))
				await store.addUsage({ sessionId: id, seq: seq + 1, agentId: "a", model: "m", ts: 1000 + seq, ...usage });
		}
		const name = f === 1 ? "trace.jsonl" : `trace_${String(f).padStart(3, "0")}.jsonl`;
		writeFileSync(join(dir, name), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	}
	rows.push(row);
}

const sessions = new SessionStore(home);
const cpu = process.cpuUsage();
const wall = performance.now();
for (const row of rows) await importTraceUsage(store, sessions, row);
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - wall;
const imported = (await store.usageRows({})).length;
await store.close();
rmSync(home, { recursive: true, force: true });
console.log(
	JSON.stringify({
		sessions: SESSIONS,
		files: FILES,
		turnsPerFile: TURNS,
		importCpuMs: Math.round((used.user + used.system) / 1000),
		importWallMs: Math.round(wallMs),
		usageRows: imported,
	}),
);
