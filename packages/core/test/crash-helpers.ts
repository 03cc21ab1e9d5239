import { cpSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import type { AgentOptions } from "../src/engine/agent/agent.js";
import type { Session } from "../src/engine/session/session.js";
import { userText } from "../src/messages/constructors.js";
import type { OmniMessage, ToolCall } from "../src/messages/omni-message.js";
import type { ModelAdapter } from "../src/model/model-adapter.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../src/trace/trace-files.js";
import { readTrace } from "../src/trace/trace-reader.js";
import { strictAgent, tempDir } from "./harness.js";

/**
 * A `kill -9` at this instant, without killing anything: the Session's folder as the disk holds
 * it now (buffered Trace lines are lost, as they would be) is copied to a fresh home, which a
 * resume then reads. The caller abandons the original Session. With `tear` (0 ≤ tear < 1), the
 * newest file's last line is also cut at that fraction of its bytes, as a write cut short would
 * leave it. Not a header, a seq reservation or a tool_start: each is written, whole, before
 * anything relies on it (a number is used, a tool runs), so a crash never leaves one torn that
 * was relied on.
 */
export function crashCopy(home: string, sessionId: string, tear?: number): string {
	const copy = tempDir("omniloop-crashed-");
	cpSync(sessionDir(home, sessionId), sessionDir(copy, sessionId), { recursive: true });
	if (tear !== undefined) tearLastLine(sessionDir(copy, sessionId), tear);
	return copy;
}

function tearLastLine(dir: string, fraction: number): void {
	const path = join(dir, traceFileName(latestTraceNumber(dir)));
	const bytes = readFileSync(path);
	const end = bytes.length - 1; // the last line's "\n"
	const start = bytes.lastIndexOf(0x0a, end - 1) + 1;
	if (start === 0) return; // only the header
	const line = JSON.parse(bytes.subarray(start, end).toString("utf8")) as { type: string };
	if (line.type === "seq_reserved" || line.type === "tool_start") return;
	truncateSync(path, start + Math.floor(fraction * (end - start)));
}

/** Resumes a Session from a crashed copy's home, on a new agent (the crashed process's is gone). */
export async function resumeCrashed(
	home: string,
	sessionId: string,
	model: ModelAdapter,
	options: Partial<AgentOptions> = {},
): Promise<Session> {
	const agent = await strictAgent({ model, home, ...options });
	return agent.resumeSession(sessionId);
}

/** The sum of every `token_usage.request.total` in all of a Session's Trace files, as a reader sees them. */
export function tracedUsageTotal(home: string, sessionId: string): number {
	const dir = sessionDir(home, sessionId);
	let total = 0;
	for (let n = 1; n <= latestTraceNumber(dir); n++) {
		for (const message of readTrace(join(dir, traceFileName(n))).messages)
			if (message.type === "token_usage") total += message.request.total;
	}
	return total;
}

/**
 * Runs `text` on `session` and crashes (copies its folder as the disk holds it, then abandons the
 * run) when `approve` is asked about a call not in `allow`; the calls in `allow` are allowed.
 * Returns the crashed copy's home and what the run streamed before it ended.
 */
export async function crashAtApproval(
	session: Session,
	home: string,
	options: { allow?: readonly string[]; askAhead?: boolean; text?: string } = {},
): Promise<{ crashed: string; out: OmniMessage[] }> {
	const controller = new AbortController();
	let crashed = "";
	const out: OmniMessage[] = [];
	const approve = async (call: ToolCall): Promise<"allow"> => {
		if (options.allow?.includes(call.callId)) return "allow";
		if (crashed === "") {
			crashed = crashCopy(home, session.id);
			controller.abort();
		}
		return new Promise<"allow">(() => {});
	};
	const run = session.run([userText(options.text ?? "go")], {
		signal: controller.signal,
		approve,
		...(options.askAhead === undefined ? {} : { askAhead: options.askAhead }),
	});
	for await (const message of run) out.push(message);
	return { crashed, out };
}
