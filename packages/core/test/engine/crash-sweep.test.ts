import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, fail, ScriptedModel, type ScriptedTurn, say, wait } from "../../src/model/scripted.js";
import { crashCopy, resumeCrashed, tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, countedEcho, harness, ofType, pairingProblems, scriptByPurpose } from "../harness.js";

afterEach(cleanup);

const blip = fail({ class: "timeout", message: "socket hang up" });

function script(): ScriptedTurn[] {
	return scriptByPurpose(
		[
			[
				say("looking", ["look", "ing"]),
				callTool("read", { text: "a" }, "r1"),
				wait(5),
				callTool("write", { text: "b", ms: 20 }, "w1"),
				blip,
			],
			[
				callTool("read", { text: "a" }, "r1"),
				callTool("write", { text: "b", ms: 20 }, "w1"),
				callTool("write", { text: "c" }, "w2"),
			],
			[say("more", ["mo", "re"]), callTool("read", { text: "d" }, "r2")],
			[say("done")],
		],
		[[say("[summary]short[/summary]")]],
	);
}

async function scenario(crashAt: number, continueIt: boolean, tear?: number) {
	const runs: string[] = [];
	const tools = [countedEcho(runs, { name: "read" }), countedEcho(runs, { name: "write", readOnly: false })];
	const settings = { reconnect: { baseMs: 1 }, compaction: { maxSessionTurns: 2 } };
	const { session, home } = await harness(script(), { tools, settings });
	const controller = new AbortController();
	let crashed = "";
	let maxSeq = 0;
	let n = 0;
	const out: OmniMessage[] = [];
	const approve = async () => "allow" as const;
	for await (const m of session.run([userText("go")], { signal: controller.signal, approve, askAhead: true })) {
		if (crashed !== "") continue;
		out.push(m);
		if (m.seq > maxSeq) maxSeq = m.seq;
		if (m.type === "tool_call_output" && m.callId === "r1") session.steer("also check x");
		if (n++ === crashAt) {
			crashed = crashCopy(home, session.id, tear);
			controller.abort();
		}
	}
	if (crashed === "") return { ended: true };
	const runsBefore = [...runs];
	const model = new ScriptedModel(
		scriptByPurpose([[say("fine")], [say("fine")]], [[say("[summary]short2[/summary]")]]),
	);
	const resumed = await resumeCrashed(crashed, session.id, model, { tools, settings });
	const next =
		continueIt && resumed.unfinishedTask !== undefined
			? resumed.continueTask({ approve })
			: resumed.run([userText("follow")], { approve });
	const after = await collect(next);
	const problems: string[] = [];
	for (const r of model.requests) {
		const p = pairingProblems(r.messages);
		if (p.length > 0) problems.push(`pairing: ${JSON.stringify(p)}`);
	}
	const dupes = runs.filter((id, i) => runs.indexOf(id) !== i);
	if (dupes.length > 0) problems.push(`executed twice: ${dupes} (before crash ${runsBefore}, all ${runs})`);
	let last = maxSeq;
	for (const m of after) {
		if (m.seq <= last) problems.push(`seq ${m.seq} after ${last} (${m.type})`);
		last = m.seq;
	}
	const dones = ofType(after, "done");
	if (dones.length !== 1) problems.push(`${dones.length} done`);
	const ab = after.findIndex((m) => m.type === "abort");
	if (ab >= 0 && after.length - ab !== 2) problems.push("after abort more than done");
	const total = tracedUsageTotal(crashed, session.id);
	const su = (dones[0] as { sessionUsage?: { total: number } } | undefined)?.sessionUsage?.total;
	if (su !== total) problems.push(`sessionUsage ${su} != traced ${total}`);
	if (dones[0]?.reason !== "model_stop") problems.push(`done ${dones[0]?.reason} ${JSON.stringify(dones[0])}`);
	return { ended: false, problems };
}

describe("crash at every message of a turn with reconnect, steering, askAhead and a mid-Task compaction", () => {
	for (const mode of ["continue", "run"] as const) {
		for (const tear of [undefined, 0.5]) {
			it(`${mode}, tear ${tear}: every crash point keeps the guarantees`, async () => {
				const all: string[] = [];
				for (let k = 0; k < 200; k++) {
					const r = await scenario(k, mode === "continue", tear);
					if (r.ended) break;
					for (const p of r.problems ?? []) all.push(`crash@${k}: ${p}`);
					cleanup();
				}
				expect(all).toEqual([]);
			}, 120_000);
		}
	}
});
