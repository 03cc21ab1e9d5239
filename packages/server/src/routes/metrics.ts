import type { Hono } from "hono";
import type { AppEnv, ServerState } from "../server-state.js";

/** `GET /metrics`: the Prometheus text of the requests, Sessions by status, running Tasks and usage rows not yet written. */
export function metricsRoutes(app: Hono<AppEnv>, state: ServerState): void {
	app.get("/metrics", (c) => {
		const sessionsByStatus: Record<string, number> = { idle: 0, busy: 0, waiting_approval: 0 };
		let tasksRunning = 0;
		for (const hosted of state.registry.all()) {
			sessionsByStatus[hosted.status] = (sessionsByStatus[hosted.status] ?? 0) + 1;
			if (hosted.running) tasksRunning++;
		}
		return c.text(
			state.metrics.render({ sessionsByStatus, tasksRunning, usageRowsPending: state.host.usage.pendingRows }),
			200,
			{
				"content-type": "text/plain; version=0.0.4; charset=utf-8",
			},
		);
	});
}
