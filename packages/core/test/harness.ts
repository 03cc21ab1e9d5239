import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { type Agent, type AgentOptions, createAgent } from "../src/engine/agent/agent.js";
import type { RunOptions, Session } from "../src/engine/session/session.js";
import { userText } from "../src/messages/constructors.js";
import type { ModelMessage, OmniMessage } from "../src/messages/omni-message.js";
import { sleep } from "../src/model/gate.js";
import type { ModelRequest } from "../src/model/model-adapter.js";
import {
	ScriptedModel,
	type ScriptedModelOptions,
	type ScriptedStep,
	type ScriptedTurn,
	say,
} from "../src/model/scripted.js";
import { type Tool, tool } from "../src/tools/tool.js";
import type { SeqReservation } from "../src/trace/seq-reservation.js";
import { sessionDir, traceFileName } from "../src/trace/trace-files.js";

/** Temporary folders made by a harness, removed by `cleanup`. */
const made: string[] = [];

export function tempDir(prefix = "omniloop-test-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.push(dir);
	return dir;
}

export function cleanup(): void {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Harness {
	agent: Agent;
	session: Session;
	model: ScriptedModel;
	home: string;
	workspace: string;
}

/**
 * An agent as the engine tests make one: `test_agent`, no built-in tools (engine tests choose
 * their tools; the built-ins have tests of their own), no checkpoints (test/checkpoints has
 * theirs; a git process still writing after a crashed run would race the test's cleanup), and any
 * pairing repair before a request throws, which ends the Task with an error: a repair means a bug upstream.
 */
export function strictAgent(options: Partial<AgentOptions> & Pick<AgentOptions, "model" | "home">): Promise<Agent> {
	return createAgent({
		agentId: "test_agent",
		builtins: false,
		checkpoints: false,
		onPairingRepair: (repairs) => {
			throw new Error(`pairing had to be repaired: ${JSON.stringify(repairs)}`);
		},
		...options,
	});
}

/**
 * An agent on the scripted model with a temporary home and workspace. Any pairing repair before
 * a request throws, which ends the Task with an error: a repair means a bug upstream.
 */
export async function harness(
	turns: ScriptedTurn[],
	options: Partial<AgentOptions> = {},
	modelOptions: ScriptedModelOptions = {},
): Promise<Harness> {
	const home = tempDir("omniloop-home-");
	const workspace = tempDir("omniloop-ws-");
	const model = new ScriptedModel(turns, modelOptions);
	const agent = await strictAgent({ model, home, ...options });
	const session = await agent.createSession({ workspaceDir: workspace });
	return { agent, session, model, home, workspace };
}

export async function collect(stream: AsyncIterable<OmniMessage>): Promise<OmniMessage[]> {
	const out: OmniMessage[] = [];
	for await (const message of stream) out.push(message);
	return out;
}

export function runText(session: Session, text: string, options?: RunOptions): Promise<OmniMessage[]> {
	return collect(session.run([userText(text)], options));
}

export const types = (messages: readonly OmniMessage[]) => messages.map((m) => m.type);

export function ofType<K extends OmniMessage["type"]>(messages: readonly OmniMessage[], type: K) {
	return messages.filter((m): m is Extract<OmniMessage, { type: K }> => m.type === type);
}

export const lastDone = (messages: readonly OmniMessage[]) => ofType(messages, "done").at(-1);

/** The model messages of a request, as short strings: "user:hi", "call:c1", "out:c1:ok". */
export function shape(messages: readonly ModelMessage[]): string[] {
	return messages.map((m) => {
		switch (m.type) {
			case "user_text":
				return `user:${m.text}`;
			case "assistant_text":
				return `assistant:${m.text}`;
			case "reasoning":
				return `reasoning:${m.text}`;
			case "tool_call":
				return `call:${m.callId}`;
			default:
				return `out:${m.callId}:${m.status}`;
		}
	});
}

/** A read-only tool that echoes, after `ms` of (abortable) work. */
export function echoTool(options: { name?: string; ms?: number; readOnly?: boolean } = {}): Tool {
	return tool({
		name: options.name ?? "echo",
		description: "Echoes its text back.",
		parameters: z.object({ text: z.string(), ms: z.number().optional() }),
		readOnly: options.readOnly ?? true,
		execute: async ({ text, ms }, ctx) => {
			const wait = ms ?? options.ms ?? 0;
			if (wait > 0) await sleep(wait, ctx.signal);
			return `echo: ${text}`;
		},
	});
}

/** The messages of a Session's n-th Trace file, header left out, straight from the disk. */
export function tracedMessages(home: string, sessionId: string, file = 1): OmniMessage[] {
	return tracedMessagesIn(sessionDir(home, sessionId), file);
}

/** The messages of the n-th Trace file in a Session's folder (a subagent's lives in its parent's); seq reservations left out. */
export function tracedMessagesIn(dir: string, file = 1): OmniMessage[] {
	return readFileSync(join(dir, traceFileName(file)), "utf8")
		.split("\n")
		.filter(Boolean)
		.slice(1)
		.map((line) => JSON.parse(line) as OmniMessage | SeqReservation)
		.filter((record): record is OmniMessage => record.type !== "seq_reserved");
}

/** A compaction request's reply: the summary in the markers the engine reads (parseMarkers). */
export const summary = (text: string): ScriptedStep[] => [say(`[summary]${text}[/summary]`)];

/**
 * A script that answers turn requests and compaction requests from separate lists, whatever
 * order they come in. A list that runs out repeats its last entry.
 */
export function scriptByPurpose(
	turns: readonly (readonly ScriptedStep[])[],
	compactions: readonly (readonly ScriptedStep[])[],
	length = 200,
): ScriptedTurn[] {
	let turn = 0;
	let compaction = 0;
	const pick = (list: readonly (readonly ScriptedStep[])[], i: number) => list[Math.min(i, list.length - 1)] ?? [];
	return Array.from(
		{ length },
		() => (request: ModelRequest) =>
			request.purpose === "compaction" ? pick(compactions, compaction++) : pick(turns, turn++),
	);
}

/** The echo tool, recording the call id of every execution (to check a call runs at most once). */
export function countedEcho(runs: string[], options: Parameters<typeof echoTool>[0] = {}): Tool {
	const echo = echoTool(options);
	return {
		...echo,
		execute: (args, ctx) => {
			runs.push(ctx.callId);
			return echo.execute(args, ctx);
		},
	};
}

/** A write tool (asks by default) that records each execution's call id; `ms` of abortable work. */
export function recordedWrite(runs: string[], ms = 0): Tool {
	return tool({
		name: "write",
		description: "writes",
		parameters: z.object({ text: z.string() }),
		execute: async ({ text }, ctx) => {
			runs.push(ctx.callId);
			if (ms > 0) await sleep(ms, ctx.signal);
			return `wrote ${text}`;
		},
	});
}

/**
 * "hung" if `p` has not settled in 10 s: a hang, told apart from a slow machine's late answer (it
 * settles as soon as `p` does; the limit only names a hang before the test's own time is up).
 */
export const hangOr = <T>(p: Promise<T>) =>
	Promise.race([p, new Promise<"hung">((r) => setTimeout(() => r("hung"), 10_000))]);

export { pairingProblems } from "./property/pairing-checker.js";

/**
 * The request "next" makes after a first Task ran as `setUp`'s `runFirst` runs it (on a model
 * scripted with its `turns`): in the live Session, and in one resumed from its Trace. As
 * `shape`s, to compare. `options` (tools, approval) go to both agents.
 */
export async function nextRequestLiveAndResumed(
	options: Partial<AgentOptions>,
	setUp: () => Promise<{ turns: ScriptedTurn[]; runFirst: (session: Session) => Promise<void> }>,
): Promise<{ live: string[]; resumed: string[] }> {
	const nextRequest = async (resume: boolean) => {
		const { turns, runFirst } = await setUp();
		const { session, home, model } = await harness(turns, options);
		await runFirst(session);
		if (!resume) {
			await runText(session, "next");
			return shape(model.requests.at(-1)?.messages ?? []);
		}
		await session.close();
		const later = new ScriptedModel([[say("ok")]]);
		const resumed = await (await strictAgent({ ...options, model: later, home })).resumeSession(session.id);
		await runText(resumed, "next");
		return shape(later.requests[0]?.messages ?? []);
	};
	return { live: await nextRequest(false), resumed: await nextRequest(true) };
}
