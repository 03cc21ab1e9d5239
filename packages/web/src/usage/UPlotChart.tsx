import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useTheme } from "./use-theme.js";

const cssColor = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * A uPlot bar chart over categories (days, models): small (uPlot has no dependencies) and drawn
 * on a canvas, so long ranges stay cheap. The categories label the x axis; the values also go to
 * a table beside it (the canvas is not readable by a screen reader).
 */
export function BarChart({
	title,
	categories,
	values,
	format,
}: {
	title: string;
	categories: string[];
	values: number[];
	format: (value: number) => string;
}) {
	const box = useRef<HTMLDivElement>(null);
	const theme = useTheme();
	// biome-ignore lint/correctness/useExhaustiveDependencies: a new theme draws the axes in its colours.
	useEffect(() => {
		const el = box.current;
		if (el === null) return;
		const x = categories.map((_, i) => i);
		const text = cssColor("--text");
		const accent = cssColor("--accent");
		// Where a test sees which colour the axes were drawn in (the canvas does not say).
		el.dataset.axisColor = text;
		const plot = new uPlot(
			{
				width: el.clientWidth || 600,
				height: 180,
				legend: { show: false },
				cursor: { show: false },
				scales: { x: { time: false, range: [-0.6, Math.max(0, categories.length - 1) + 0.6] } },
				axes: [
					{
						stroke: text,
						size: 30,
						grid: { show: false },
						ticks: { show: false },
						splits: () => x,
						values: (_u, splits) => splits.map((i) => categories[i] ?? ""),
					},
					{
						stroke: text,
						grid: { stroke: cssColor("--border") },
						size: 64,
						values: (_u, splits) => splits.map(format),
					},
				],
				series: [
					{},
					{
						label: title,
						fill: accent,
						stroke: accent,
						points: { show: false },
						paths: uPlot.paths.bars?.({ size: [0.6, 56] }),
					},
				],
			},
			[x, values],
			el,
		);
		const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 180 }));
		resize.observe(el);
		return () => {
			resize.disconnect();
			plot.destroy();
		};
	}, [categories, values, title, format, theme]);
	return (
		<figure className="chart">
			<figcaption>{title}</figcaption>
			<div ref={box} className="chart-canvas" role="img" aria-label={title} />
		</figure>
	);
}
