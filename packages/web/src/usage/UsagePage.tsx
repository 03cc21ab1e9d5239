import type { UsageGroup } from "@omniloop/client";
import { useMemo } from "react";
import { useSessions, useUsage } from "../app/queries.js";
import { titleOf } from "../app/session-title.js";
import { formatCost, formatPercent, formatTokens } from "./format.js";
import { BarChart } from "./UPlotChart.js";

const tokens = (n: number) => formatTokens(Math.round(n));
const dollars = (n: number) => (n === 0 ? "$0" : `$${Number(n.toPrecision(2))}`);

function chartData(rows: UsageGroup[] | undefined, pick: (row: UsageGroup) => number) {
	const list = rows ?? [];
	return { categories: list.map((r) => r.key), values: list.map(pick) };
}

/** Tokens and cost per day and per model as charts, the cache-read share, and a table per Session. */
export function UsagePage() {
	const byDay = useUsage("day");
	const byModel = useUsage("model");
	const bySession = useUsage("session");
	const sessions = useSessions();
	const dayTokens = useMemo(() => chartData(byDay.data, (r) => r.total), [byDay.data]);
	const dayCost = useMemo(() => chartData(byDay.data, (r) => r.cost ?? 0), [byDay.data]);
	const modelTokens = useMemo(() => chartData(byModel.data, (r) => r.total), [byModel.data]);
	// A model without a price has no cost: the others' still count, and the unpriced are named.
	const pricedModels = useMemo(() => (byModel.data ?? []).filter((r) => r.cost !== undefined), [byModel.data]);
	const unpriced = (byModel.data ?? []).filter((r) => r.cost === undefined).map((r) => r.key);
	const modelCost = useMemo(() => chartData(pricedModels, (r) => r.cost ?? 0), [pricedModels]);
	const titles = new Map((sessions.data ?? []).map((s) => [s.id, titleOf(s)]));
	const all = byDay.data ?? [];
	const input = all.reduce((sum, r) => sum + r.input, 0);
	const cacheRead = all.reduce((sum, r) => sum + r.cacheRead, 0);
	const total = all.reduce((sum, r) => sum + r.total, 0);
	const priced = all.every((r) => r.cost !== undefined);
	const cost = pricedModels.reduce((sum, r) => sum + (r.cost ?? 0), 0);
	return (
		<section className="usage" aria-labelledby="usage-title">
			<h1 id="usage-title">Usage</h1>
			<dl className="usage-totals">
				<div>
					<dt>Tokens</dt>
					<dd>{formatTokens(total)}</dd>
				</div>
				<div>
					<dt>Requests</dt>
					<dd>{all.reduce((sum, r) => sum + r.requests, 0)}</dd>
				</div>
				<div>
					<dt>Cache-read share of input</dt>
					<dd>{formatPercent(cacheRead, input)}</dd>
				</div>
				<div>
					<dt>Cost</dt>
					<dd>
						{pricedModels.length === 0
							? "— (no price set)"
							: unpriced.length === 0
								? formatCost(cost)
								: `${formatCost(cost)}, and ${unpriced.join(", ")} (no price set)`}
					</dd>
				</div>
			</dl>
			{all.length === 0 ? (
				<p className="muted">No model requests yet.</p>
			) : (
				<div className="charts">
					<BarChart title="Tokens per day" format={tokens} {...dayTokens} />
					{/* A day with an unpriced model's requests has no known cost: a bar would read as too low. */}
					{priced ? <BarChart title="Cost per day (USD)" format={dollars} {...dayCost} /> : null}
					<BarChart title="Tokens per model" format={tokens} {...modelTokens} />
					{pricedModels.length === 0 ? null : (
						<BarChart
							title={unpriced.length === 0 ? "Cost per model (USD)" : "Cost per model with a price (USD)"}
							format={dollars}
							{...modelCost}
						/>
					)}
				</div>
			)}
			<UsageTable caption="Per model" rows={byModel.data ?? []} name={(key) => key} />
			<UsageTable caption="Per Session" rows={bySession.data ?? []} name={(key) => titles.get(key) ?? key} />
		</section>
	);
}

function UsageTable({ caption, rows, name }: { caption: string; rows: UsageGroup[]; name: (key: string) => string }) {
	if (rows.length === 0) return null;
	return (
		<table className="usage-table">
			<caption>{caption}</caption>
			<thead>
				<tr>
					<th scope="col">{caption === "Per model" ? "Model" : "Session"}</th>
					<th scope="col">Requests</th>
					<th scope="col">Input</th>
					<th scope="col">Output</th>
					<th scope="col">Cache read</th>
					<th scope="col">Cost</th>
				</tr>
			</thead>
			<tbody>
				{rows.map((r) => (
					<tr key={r.key}>
						<th scope="row">{name(r.key)}</th>
						<td>{r.requests}</td>
						<td>{formatTokens(r.input)}</td>
						<td>{formatTokens(r.output)}</td>
						<td>
							{formatTokens(r.cacheRead)} ({formatPercent(r.cacheRead, r.input)})
						</td>
						<td>{formatCost(r.cost)}</td>
					</tr>
				))}
			</tbody>
		</table>
	);
}
