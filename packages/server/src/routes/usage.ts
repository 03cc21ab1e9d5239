import { addUsage, type ProjectConfig } from "@omniloop/core";
import type { Hono } from "hono";
import { z } from "zod";
import { intQuery } from "../body.js";
import { HttpError } from "../errors.js";
import type { AppEnv, ServerState } from "../server-state.js";
import type { UsageSum } from "../store/store.js";
import { costOf, type Price } from "../usage/cost.js";

const groupBy = z.enum(["day", "model", "session", "agent"]);

interface UsageGroup extends Omit<UsageSum, "model"> {
	cost?: number;
}

/** Usage: grouped sums (with cost when every model in the group has a price), and the raw rows. */
export function usageRoutes(app: Hono<AppEnv>, state: ServerState): void {
	app.get("/usage", async (c) => {
		const parsed = groupBy.safeParse(c.req.query("groupBy") ?? "day");
		if (!parsed.success) throw new HttpError("invalid_body", "groupBy: expected day, model, session or agent");
		const all = await state.host.store.usageSums({ from: intQuery(c, "from"), to: intQuery(c, "to") }, parsed.data);
		// A hidden Session (outside the roots) counts in the totals but is not named.
		const sums = parsed.data === "session" ? all.filter((sum) => !state.registry.hides(sum.key)) : all;
		return c.json({ rows: group(sums, prices(state.host.project.load().config)) });
	});

	app.get("/usage/rows", async (c) => {
		const sessionId = c.req.query("sessionId");
		const rows = await state.host.store.usageRows({ sessionId: sessionId || undefined });
		return c.json({ rows: rows.filter((row) => !state.registry.hides(row.sessionId)) });
	});
}

/** Prices of omniloop.yaml's models, by name and by the `provider:model` id usage rows carry. */
function prices(config: ProjectConfig): Map<string, Price> {
	const out = new Map<string, Price>();
	for (const [name, model] of Object.entries(config.models)) {
		if (model.price === undefined) continue;
		out.set(name, model.price);
		out.set(`${model.provider}:${model.model}`, model.price);
	}
	return out;
}

function group(sums: readonly UsageSum[], priced: ReadonlyMap<string, Price>): UsageGroup[] {
	const groups = new Map<string, UsageGroup & { unpriced: boolean }>();
	for (const sum of sums) {
		const g = groups.get(sum.key) ?? {
			key: sum.key,
			requests: 0,
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			reasoning: 0,
			total: 0,
			cost: 0,
			unpriced: false,
		};
		g.requests += sum.requests;
		addUsage(g, sum);
		const price = priced.get(sum.model);
		if (price === undefined) g.unpriced = true;
		else g.cost = (g.cost ?? 0) + costOf(sum, price);
		groups.set(sum.key, g);
	}
	return [...groups.values()].map(({ unpriced, cost, ...rest }) => (unpriced ? rest : { ...rest, cost }));
}
