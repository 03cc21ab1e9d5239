import type { ViewerCounters } from "./sse/viewer.js";
import type { StoreCounters } from "./store/busy-retry.js";

/** Latency buckets for requests, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The server's counters, rendered as Prometheus text by `GET /metrics`. */
export class Metrics implements ViewerCounters, StoreCounters {
	messagesSent = 0;
	messagesEmitted = 0;
	tasksStarted = 0;
	viewers = 0;
	private readonly cuts = { queue_full: 0, stalled: 0 };
	private storeBusyRetries = 0;
	private readonly storeFailures = new Map<string, number>();
	private readonly requestCounts = new Map<string, number>();
	private readonly latency = new Array<number>(BUCKETS.length + 1).fill(0);
	private latencySum = 0;
	private latencyCount = 0;

	framesSent(count: number): void {
		this.messagesSent += count;
	}

	viewerCut(reason: "queue_full" | "stalled"): void {
		this.cuts[reason]++;
	}

	storeBusyRetry(): void {
		this.storeBusyRetries++;
	}

	/** A store write failed (given up, or kept to be tried again: a usage row). */
	storeWriteFailed(operation: string): void {
		this.storeFailures.set(operation, (this.storeFailures.get(operation) ?? 0) + 1);
	}

	request(method: string, status: number, seconds: number): void {
		const key = `method="${method}",status="${status}"`;
		this.requestCounts.set(key, (this.requestCounts.get(key) ?? 0) + 1);
		let bucket = BUCKETS.findIndex((limit) => seconds <= limit);
		if (bucket === -1) bucket = BUCKETS.length;
		this.latency[bucket] = (this.latency[bucket] ?? 0) + 1;
		this.latencySum += seconds;
		this.latencyCount++;
	}

	render(gauges: { sessionsByStatus: Record<string, number>; tasksRunning: number; usageRowsPending: number }): string {
		const lines: string[] = [];
		const metric = (name: string, type: string, help: string, samples: [string, number][]) => {
			lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
			for (const [labels, value] of samples) lines.push(`${name}${labels === "" ? "" : `{${labels}}`} ${value}`);
		};
		metric(
			"omniloop_sessions",
			"gauge",
			"Sessions by status.",
			Object.entries(gauges.sessionsByStatus).map(([status, n]) => [`status="${status}"`, n]),
		);
		metric("omniloop_tasks_running", "gauge", "Tasks and compactions running.", [["", gauges.tasksRunning]]);
		metric("omniloop_tasks_started_total", "counter", "Tasks and compactions started.", [["", this.tasksStarted]]);
		metric("omniloop_sse_viewers", "gauge", "Open SSE streams.", [["", this.viewers]]);
		metric("omniloop_messages_emitted_total", "counter", "Messages emitted by Sessions.", [["", this.messagesEmitted]]);
		metric("omniloop_sse_frames_sent_total", "counter", "SSE frames written to viewers.", [["", this.messagesSent]]);
		metric(
			"omniloop_sse_viewers_cut_total",
			"counter",
			"Viewers disconnected for falling behind.",
			Object.entries(this.cuts).map(([reason, n]) => [`reason="${reason}"`, n]),
		);
		metric(
			"omniloop_store_busy_retries_total",
			"counter",
			"Store statements tried again because another process held the database's lock.",
			[["", this.storeBusyRetries]],
		);
		metric(
			"omniloop_store_write_failures_total",
			"counter",
			"Store writes that failed, by what they were for.",
			[...this.storeFailures.entries()].map(([operation, n]) => [`operation="${operation}"`, n]),
		);
		metric("omniloop_usage_rows_pending", "gauge", "Usage rows kept in memory until the store takes them.", [
			["", gauges.usageRowsPending],
		]);
		metric("omniloop_http_requests_total", "counter", "HTTP requests.", [...this.requestCounts.entries()]);
		lines.push(
			"# HELP omniloop_http_request_duration_seconds Time to the response headers.",
			"# TYPE omniloop_http_request_duration_seconds histogram",
		);
		let cumulative = 0;
		BUCKETS.forEach((limit, i) => {
			cumulative += this.latency[i] ?? 0;
			lines.push(`omniloop_http_request_duration_seconds_bucket{le="${limit}"} ${cumulative}`);
		});
		lines.push(`omniloop_http_request_duration_seconds_bucket{le="+Inf"} ${this.latencyCount}`);
		lines.push(`omniloop_http_request_duration_seconds_sum ${this.latencySum}`);
		lines.push(`omniloop_http_request_duration_seconds_count ${this.latencyCount}`);
		return `${lines.join("\n")}\n`;
	}
}
