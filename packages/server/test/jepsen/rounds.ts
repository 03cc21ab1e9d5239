import type { OmniMessage } from "@omniloop/core";
import { collectMessages, createSession } from "../cluster-processes.js";
import { eventually, readFrames } from "../harness.js";
import { getWorkflow, post, startWorkflow } from "../workflows-harness.js";
import { readMarker } from "./checks.js";
import type { Cluster, FaultKind } from "./cluster.js";
import { reconnectingViewer, type Viewer } from "./viewers.js";

/** Where in a chat Task the fault strikes: each is an event the fault waits for. */
export const CHAT_POINTS = ["partial", "tool_start", "tool_run", "model_request", "task_end"] as const;
/** Where in a workflow: waiting on a person, right after the approval, while the approved call runs. */
export const WORKFLOW_POINTS = ["approval_wait", "after_approve", "tool_run"] as const;

export interface RoundResult {
	/** The Sessions to check, each with its reconnecting viewers. */
	sessions: { id: string; viewers: Viewer[] }[];
	/** What the round did, for the failure messages. */
	what: string;
}

function viewers(cluster: Cluster, id: string, count: number): Viewer[] {
	return Array.from({ length: count }, () => reconnectingViewer(cluster.servers, id, cluster.pick));
}

/**
 * A chat Task on one process whose shell call appends `c<round>`; a watcher on another; the fault
 * hits the runner at `point`, then another process takes the Session over with a new message.
 */
export async function chatRound(cluster: Cluster, round: number, kind: FaultKind): Promise<RoundResult> {
	const point = cluster.choose(CHAT_POINTS);
	const runs = cluster.up();
	const watches = cluster.up([runs]);
	const runner = cluster.server(runs);
	const id = await createSession(runner);
	const live = collectMessages(await cluster.server(watches).api(`/chat/sessions/${id}/events?after=0`));
	const watching = viewers(cluster, id, 2);
	await runner.api(`/chat/sessions/${id}/messages`, {
		method: "POST",
		json: { text: `go mark:c${round}` },
		headers: { prefer: "respond-async" },
	});
	const seen = (type: string) => () => (live.some((m) => m.type === type) ? true : undefined);
	if (point === "partial") await eventually(seen("partial_text"), 30_000);
	if (point === "tool_start") await eventually(seen("tool_start"), 30_000);
	if (point === "tool_run")
		await eventually(() => (readMarker(cluster.root).includes(`c${round}`) ? true : undefined), 30_000);
	if (point === "model_request") await eventually(seen("tool_call_output"), 30_000);
	if (point === "task_end") await eventually(seen("done"), 30_000);
	const heal = await cluster.fault(runs, kind);
	if (kind !== "none") {
		const taker = cluster.server(watches);
		await eventually(async () => {
			const r = await taker.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: `then r${round}` } });
			if (r.status !== 200) return undefined;
			await readFrames(r);
			return true;
		}, 30_000);
	}
	await heal();
	await cluster.idleEverywhere(id);
	// The watcher, never faulted, has had everything up to the history's end.
	const history = await cluster.historyOf(id);
	const lastSeq = (history.at(-1) as OmniMessage).seq;
	await eventually(() => (live.some((m) => m.seq >= lastSeq) ? true : undefined), 30_000);
	return { sessions: [{ id, viewers: watching }], what: `chat ${kind}@${point} runner ${runs}` };
}

/**
 * A durable workflow whose shell call (appending `w<round>`) asks a person; approved and resumed
 * from random living processes, the fault hits the workflow's holder at `point`.
 */
export async function workflowRound(cluster: Cluster, round: number, kind: FaultKind): Promise<RoundResult> {
	const point = cluster.choose(WORKFLOW_POINTS);
	const starter = cluster.server(cluster.up());
	const started = await startWorkflow(starter.api, { agentId: "asks", input: `do it mark:w${round}` });
	const workflow = await getWorkflow(starter.api, started);
	const watching = viewers(cluster, workflow.sessionId, 2);
	let heal: (() => Promise<void>) | undefined;
	const strike = async () => {
		const holder = cluster.indexOfRole(await cluster.audit.holder(`workflow:${started}`));
		heal = await cluster.fault(holder, kind);
		return `holder ${holder}`;
	};
	let struck = "";
	// Drives the workflow from random living processes until it ends: approve what waits, resume what is ready.
	const done = await eventually(async () => {
		const api = cluster.server(cluster.up()).api;
		const view = await getWorkflow(api, started);
		if (["completed", "failed", "cancelled"].includes(view.status)) return view;
		if (view.status === "waiting_approval" && point === "approval_wait" && heal === undefined) {
			struck = await strike();
			return undefined;
		}
		if (view.status === "ready" && point === "after_approve" && heal === undefined) {
			struck = await strike();
			return undefined;
		}
		if (point === "tool_run" && heal === undefined && readMarker(cluster.root).includes(`w${round}`)) {
			struck = await strike();
			return undefined;
		}
		const pending = view.pendingApprovals[0];
		if (view.status === "waiting_approval" && pending !== undefined)
			await post(api, `/workflows/${started}/approve`, { correlationId: pending.correlationId, decision: "allow" });
		if (view.status === "ready") await post(api, `/workflows/${started}/resume`);
		return undefined;
	}, 60_000);
	// A fault may strike after the workflow has ended too fast to see (then it is healed here).
	if (heal !== undefined) await heal();
	await cluster.idleEverywhere(workflow.sessionId);
	return {
		sessions: [{ id: workflow.sessionId, viewers: watching }],
		what: `workflow ${kind}@${point} ${struck} ended ${done.status} ${done.error ?? ""}`,
	};
}
