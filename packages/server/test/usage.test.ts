import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage, TokenUsage } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, messagesOf, readFrames, startServer, tempDirs } from "./harness.js";

type Row = Record<string, number | string>;

describe("usage", () => {
	it("one row per token_usage event, equal to the streamed events; grouped sums with cost from the model's price", async () => {
		const dirs = tempDirs();
		writeFileSync(
			join(dirs.root, "omniloop.yaml"),
			[
				"models:",
				"  main: { provider: openai-compatible, model: fake-model, baseURL: http://127.0.0.1:9/v1, price: { input: 2, output: 10, cacheRead: 0.5 } }",
				"agents:",
				"  default_agent: { model: main }",
				"  helper: { model: main }",
			].join("\n"),
		);
		const usage = (input: number, output: number, cacheRead = 0) => ({
			type: "usage" as const,
			usage: { input, output, cacheRead, total: input + output },
		});
		const model = new ScriptedModel(
			[
				[{ type: "tool_call", name: "list_dir", args: {} }, usage(1000, 100, 400)],
				[{ type: "text", text: "done" }, usage(2000, 200)],
				[{ type: "text", text: "helped" }, usage(10, 5)],
			],
			{ id: "openai-compatible:fake-model" },
		);
		const t = await startServer({ models: { main: model } }, dirs);
		const id = await t.createSession();
		const streamed = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }))).frames,
		).filter((m: OmniMessage): m is TokenUsage => m.type === "token_usage");
		expect(streamed).toHaveLength(2);
		const helperId = await t.createSession({ agentId: "helper" });
		await readFrames(await t.api(`/chat/sessions/${helperId}/messages`, { method: "POST", json: { text: "go" } }));

		const rows = await eventually(async () => {
			const body = (await (await t.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: Row[] };
			return body.rows.length === 2 ? body.rows : undefined;
		});
		expect(rows).toEqual(
			streamed.map((event) => ({
				sessionId: id,
				seq: event.seq,
				agentId: "default_agent",
				model: "openai-compatible:fake-model",
				ts: event.ts,
				...event.request,
			})),
		);
		const all = (await (await t.api("/usage/rows")).json()) as { rows: Row[] };
		expect(all.rows).toHaveLength(3);

		const byAgent = (await (await t.api("/usage?groupBy=agent")).json()) as { rows: Row[] };
		const cost = (600 * 2 + 100 * 10 + 400 * 0.5 + 2000 * 2 + 200 * 10) / 1e6;
		expect(byAgent.rows).toEqual([
			{
				key: "default_agent",
				requests: 2,
				input: 3000,
				output: 300,
				cacheRead: 400,
				cacheWrite: 0,
				reasoning: 0,
				total: 3300,
				cost,
			},
			{
				key: "helper",
				requests: 1,
				input: 10,
				output: 5,
				cacheRead: 0,
				cacheWrite: 0,
				reasoning: 0,
				total: 15,
				cost: (10 * 2 + 5 * 10) / 1e6,
			},
		]);
		const byDay = (await (await t.api("/usage")).json()) as { rows: Row[] };
		expect(byDay.rows).toHaveLength(1);
		expect(byDay.rows[0]?.key).toBe(new Date().toISOString().slice(0, 10));
		expect(byDay.rows[0]?.requests).toBe(3);
		const bySession = (await (await t.api("/usage?groupBy=session")).json()) as { rows: Row[] };
		expect(bySession.rows.map((r) => r.key).sort()).toEqual([id, helperId].sort());
		const byModel = (await (await t.api("/usage?groupBy=model")).json()) as { rows: Row[] };
		expect(byModel.rows.map((r) => r.key)).toEqual(["openai-compatible:fake-model"]);
		const future = Date.now() + 60_000;
		const none = (await (await t.api(`/usage?from=${future}`)).json()) as { rows: Row[] };
		expect(none.rows).toEqual([]);
		const bad = await t.api("/usage?groupBy=week");
		expect(bad.status).toBe(400);
		const badFrom = await t.api("/usage?from=yesterday");
		expect(badFrom.status).toBe(400);
	});
});
