import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { tool } from "@omniloop/core";
import { ScriptedModel, type ScriptedTurn } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { eventually, messagesOf, onCleanup, readFrames, sseReader, startServer, tempDirs } from "./harness.js";
import { lockHolder } from "./sqlite-lock-holder.js";

const peek = tool({
	name: "peek",
	description: "reads nothing",
	readOnly: true,
	parameters: z.object({}),
	execute: async () => "nothing",
});

describe("SQLite locked by another process", () => {
	it("a Task runs without the event loop stopping, the failed usage writes are reported, and every token_usage gets its row once the lock is gone", async () => {
		const turns: ScriptedTurn[] = [
			...[1, 2, 3].map(
				(n): ScriptedTurn => [
					{ type: "tool_call", name: "peek", args: {} },
					{ type: "usage", usage: { input: 10 * n, output: n } },
				],
			),
			[
				{ type: "text", text: "done" },
				{ type: "usage", usage: { input: 40, output: 4 } },
			],
		];
		const dirs = tempDirs();
		const file = join(dirs.home, "omniloop.db");
		const t = await startServer(
			{
				database: file,
				model: new ScriptedModel(turns, { stepDelayMs: 10 }),
				tools: [peek],
				server: { storeBusyMs: 300 },
			},
			dirs,
		);
		const id = await t.createSession();
		const tab = sseReader(await t.api("/events"));
		const lock = await lockHolder(file, onCleanup);

		const loop = monitorEventLoopDelay({ resolution: 10 });
		loop.enable();
		const task = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }))).frames,
		);
		loop.disable();
		expect(task.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		// The old synchronous busy_timeout stopped the loop for 5 s per write; now it waits 10 ms at most.
		expect(loop.max / 1e6).toBeLessThan(1000);

		// A write given up while the lock is held is seen by the person, on the tab's stream: the
		// Session's title (given up), and a usage row (kept and tried again).
		const reports = (await tab.until((f) => f.data.includes('"operation":"usage"')))
			.map((f) => JSON.parse(f.data) as { type: string })
			.filter((e) => e.type === "store_error");
		expect(reports).toContainEqual(expect.objectContaining({ sessionId: id, operation: "title", retrying: false }));
		expect(reports.at(-1)).toMatchObject({ sessionId: id, operation: "usage", retrying: true });
		await tab.close();
		// A request that needs a write answers once it is given up: a typed error, not a frozen server.
		const refused = await t.api("/chat/sessions", { method: "POST", json: {} });
		expect(refused.status).toBe(503);
		expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("store_busy");
		await lock.release();

		const usageSeqs = task.filter((m) => m.type === "token_usage").map((m) => m.seq);
		expect(usageSeqs).toHaveLength(4);
		const rows = await eventually(async () => {
			const body = (await (await t.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: { seq: number }[] };
			return body.rows.length === usageSeqs.length ? body.rows : undefined;
		}, 15_000);
		expect(rows.map((r) => r.seq).sort((a, b) => a - b)).toEqual(usageSeqs);

		const metrics = await (await t.api("/metrics")).text();
		expect(Number(/^omniloop_store_busy_retries_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
		expect(
			Number(/^omniloop_store_write_failures_total\{operation="usage"\} (\d+)$/m.exec(metrics)?.[1]),
		).toBeGreaterThan(0);
		expect(metrics).toMatch(/^omniloop_usage_rows_pending 0$/m);
	});
});
