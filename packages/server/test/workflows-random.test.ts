import type { WorkflowView } from "@omniloop/client";
import type { OmniMessage } from "@omniloop/core";
import { seededRandom } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import {
	getWorkflow,
	linesOf,
	planInput,
	type Served,
	serve,
	startWorkflow,
	workflowProject,
} from "./workflows-harness.js";

/** Runs in one `npm test`; each run is a fresh project, random workflows and random kills. */
const RUNS = Number(process.env.WORKFLOW_RANDOM_RUNS ?? 6);
const SEED = Number(process.env.WORKFLOW_RANDOM_SEED ?? Date.now() % 1_000_000);
const FINISHED = ["completed", "failed", "cancelled"];

interface PlannedWorkflow {
	agentId: "default_agent" | "auto";
	commands: string[];
	/** By command: what the person decides (an `auto` agent's calls are allowed by policy). */
	decisions: Map<string, "allow" | "deny">;
	/** The person cancels it when it first waits, instead of deciding. */
	cancel: boolean;
	/** Runs as the named workflow `gated`: a gate first (decided so), then the Task. */
	gate: "allow" | "deny" | undefined;
	id?: string;
}

function plan(rand: () => number, count: number): PlannedWorkflow[] {
	return Array.from({ length: count }, (_, w) => {
		const agentId = rand() < 0.3 ? "auto" : "default_agent";
		const commands = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, c) => {
			const sleep = rand() < 0.4 ? "; sleep 0.3" : "";
			return `echo w${w}-c${c} >> ran.txt${sleep}`;
		});
		const decisions = new Map(commands.map((command) => [command, rand() < 0.6 ? "allow" : "deny"] as const));
		const cancel = agentId === "default_agent" && rand() < 0.2;
		const gate = agentId === "default_agent" && rand() < 0.3 ? (rand() < 0.8 ? "allow" : "deny") : undefined;
		return { agentId, commands, decisions, cancel, gate };
	});
}

/** Answers what waits and resumes what is ready, until killed or every workflow has finished. */
async function drive(served: Served, workflows: PlannedWorkflow[], rand: () => number, killed: () => boolean) {
	while (!killed()) {
		let finished = 0;
		for (const workflow of workflows) {
			const view = await getWorkflow(served.api, workflow.id as string);
			if (FINISHED.includes(view.status)) finished++;
			if (workflow.cancel && view.status === "waiting_approval") {
				await served.api(`/workflows/${view.id}/cancel`, { method: "POST" });
				continue;
			}
			for (const pending of view.pendingApprovals) {
				const { command } = JSON.parse(pending.arguments) as { command: string };
				const decision = pending.name === "approval" ? workflow.gate : workflow.decisions.get(command);
				await served.api(`/workflows/${view.id}/approve`, {
					method: "POST",
					json: { correlationId: pending.correlationId, decision },
				});
			}
			if (view.status === "ready") await served.api(`/workflows/${view.id}/resume`, { method: "POST" });
		}
		if (finished === workflows.length) return true;
		await new Promise((r) => setTimeout(r, rand() * 60));
	}
	return false;
}

/** The checks after every restart: nothing ran twice, nothing denied ran, requests were paired. */
function checkRan(root: string, workflows: PlannedWorkflow[], unpaired: number) {
	const lines = linesOf(root, "ran.txt");
	expect(lines.length, `ran twice: ${lines.join(", ")}`).toBe(new Set(lines).size);
	for (const workflow of workflows) {
		for (const [command, decision] of workflow.decisions) {
			const line = /echo (\S+)/.exec(command)?.[1] as string;
			if (workflow.agentId === "default_agent" && decision === "deny") expect(lines).not.toContain(line);
		}
	}
	expect(unpaired).toBe(0);
}

// Each run starts, kills and restarts a real `omniloop serve` up to several times: runs took 16 to
// 19 s on a busy machine (two cores shared by many jobs), too close to the default 20 s.
describe(`workflows under random kill -9 (seed ${SEED}, ${RUNS} runs)`, { timeout: 90_000 }, () => {
	for (let run = 0; run < RUNS; run++) {
		it(`run ${run}: no call runs twice, every approved call runs (unless a kill cut it off after it started), each workflow ends as its decisions say`, async () => {
			const rand = seededRandom(SEED + run);
			const gated = [
				"workflows:",
				"  gated:",
				"    steps:",
				'      - { approval: "Go?" }',
				'      - { agent: default_agent, prompt: "{{input}}" }',
			];
			const { provider, home, root } = await workflowProject(gated, { chunks: 4, chunkDelayMs: 15 });
			const workflows = plan(rand, 1 + Math.floor(rand() * 2));
			let served = await serve(home, root);
			for (const workflow of workflows) {
				const input = planInput(workflow.commands);
				const body = workflow.gate === undefined ? { agentId: workflow.agentId, input } : { workflow: "gated", input };
				workflow.id = await startWorkflow(served.api, body);
			}
			let restarts = 0;
			for (;;) {
				let killed = false;
				// Up to three kills at random moments; after that the run goes to its end.
				const timer =
					restarts < 3
						? setTimeout(() => {
								killed = true;
								void served.kill();
							}, rand() * 1500)
						: undefined;
				const done = await drive(served, workflows, rand, () => killed).catch(() => false);
				clearTimeout(timer);
				if (done) break;
				await served.kill();
				restarts++;
				served = await serve(home, root);
				checkRan(root, workflows, provider.requestsWithUnpairedCalls.length);
			}
			checkRan(root, workflows, provider.requestsWithUnpairedCalls.length);
			const lines = linesOf(root, "ran.txt");
			for (const workflow of workflows) {
				const view: WorkflowView = await getWorkflow(served.api, workflow.id as string);
				if (workflow.cancel || workflow.gate === "deny") {
					// Cancelled while its calls (or gate) waited, or stopped at its gate: none of them ran.
					expect(view.status).toBe("cancelled");
					for (const command of workflow.commands) expect(lines).not.toContain(/echo (\S+)/.exec(command)?.[1]);
					continue;
				}
				expect(view.status).toBe("completed");
				const session = (await (await served.api(`/chat/sessions/${view.sessionId}`)).json()) as {
					messages: OmniMessage[];
				};
				const outputs = session.messages.filter((m) => m.type === "tool_call_output");
				const calls = session.messages.filter((m) => m.type === "tool_call");
				expect(outputs.map((o) => o.callId).sort()).toEqual(calls.map((c) => c.callId).sort());
				for (const call of calls) {
					const { command } = JSON.parse(call.arguments) as { command: string };
					const line = /echo (\S+)/.exec(command)?.[1] as string;
					const output = outputs.find((o) => o.callId === call.callId);
					const allowed = workflow.agentId === "auto" || workflow.decisions.get(command) === "allow";
					if (!allowed) expect(output?.status).toBe("denied");
					// An approved call ran, or a kill cut it off after it started (never run again).
					else if (output?.status !== "interrupted") expect(lines).toContain(line);
				}
				if (workflow.agentId === "default_agent") {
					expect(
						view.approvals
							.filter((a) => a.name !== "approval")
							.map((a) => a.decision)
							.sort(),
					).toEqual(workflow.commands.map((c) => workflow.decisions.get(c)).sort());
				}
			}
		}, 90_000);
	}
});
