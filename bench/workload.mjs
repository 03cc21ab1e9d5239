// One measurement of one workload, in this fresh process. Prints {"ms", "maxRssKb", "count"}.
// Run by bench/run.mjs after `npm run build`: node bench/workload.mjs <workload> [turns]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AiSdkModel, createAgent, tool, userText } from "@omniloop/core";
import { callTool, ScriptedModel, say } from "@omniloop/core/testing";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { z } from "zod";

const [workload, turnsArg] = process.argv.slice(2);
const turns = Number(turnsArg ?? 200);
const W1_DELTAS = 100_000;
const MODEL_DELTAS = 100_000;

const noop = tool({
	name: "noop",
	description: "Does nothing.",
	parameters: z.object({ i: z.number() }),
	readOnly: true,
	execute: async () => "ok",
});

/** W1: one turn of 100,000 four-character text deltas. */
function w1Script() {
	const chunks = Array.from({ length: W1_DELTAS }, (_, i) => `w${i % 10}x `);
	return [[say(chunks.join(""), chunks)]];
}

/** W2: `turns` turns of 8 deltas and 4 no-op tool calls each, then a text answer. */
function w2Script(n) {
	const script = [];
	for (let t = 0; t < n - 1; t++) {
		const chunks = Array.from({ length: 8 }, (_, i) => `t${t}d${i}`);
		script.push([say(chunks.join(""), chunks), ...[0, 1, 2, 3].map((i) => callTool("noop", { i }, `c${t}_${i}`))]);
	}
	script.push([say("done", ["do", "ne"])]);
	return script;
}

/** The engine: a Session on the scripted model, every OmniMessage consumed. */
async function engine(script, { trace = true } = {}) {
	const home = mkdtempSync(join(tmpdir(), "omniloop-bench-"));
	try {
		const agent = await createAgent({
			agentId: "bench",
			model: new ScriptedModel(script),
			tools: [noop],
			builtins: false,
			home,
			configDir: home,
			settings: { maxTurns: 100_000, trace: { enabled: trace }, loopDetection: { enabled: false } },
		});
		const session = await agent.createSession({ workspaceDir: home });
		return await timed(async () => {
			let count = 0;
			for await (const message of session.run([userText("go")])) if (message.type !== "") count++;
			return count;
		});
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}

/** The baseline: a bare async-generator loop over the same scripted events, tools run with Promise.all. */
async function* bareLoop(model) {
	const messages = [userText("go")];
	const tools = [{ name: noop.name, description: noop.description, inputSchema: noop.inputSchema }];
	const signal = new AbortController().signal;
	for (;;) {
		const calls = [];
		for await (const event of model.streamGenerate({ messages, tools, purpose: "turn" }, signal)) {
			yield event;
			if (event.type === "tool_call") calls.push(event);
		}
		if (calls.length === 0) return;
		const outputs = await Promise.all(calls.map((call) => noop.execute(JSON.parse(call.arguments))));
		for (let i = 0; i < calls.length; i++) {
			const output = { type: "tool_call_output", callId: calls[i].callId, output: outputs[i] };
			messages.push(calls[i], output);
			yield output;
		}
	}
}

async function bare(script) {
	const model = new ScriptedModel(script);
	return timed(async () => {
		let count = 0;
		for await (const event of bareLoop(model)) if (event.type !== "") count++;
		return count;
	});
}

/** The model path: a fake provider in its own process streams deltas over HTTP. */
async function modelPath(reader) {
	const child = spawn(
		process.execPath,
		[new URL("./fake-server-child.mjs", import.meta.url).pathname, String(MODEL_DELTAS)],
		{
			stdio: ["ignore", "pipe", "inherit"],
		},
	);
	try {
		const [chunk] = await once(child.stdout, "data");
		const url = String(chunk).trim();
		const read = reader === "raw" ? () => rawReader(url) : () => adapterReader(url);
		await read(); // warm-up
		return await timed(read);
	} finally {
		child.kill("SIGTERM");
	}
}

async function rawReader(url) {
	const response = await fetch(`${url}/v1/chat/completions`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: "Bearer k" },
		body: JSON.stringify({
			model: "bench",
			stream: true,
			stream_options: { include_usage: true },
			messages: [{ role: "user", content: "go" }],
		}),
	});
	let count = 0;
	const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
	for await (const event of events) {
		if (event.data === "[DONE]") break;
		if (JSON.parse(event.data).choices?.[0]?.delta?.content) count++;
	}
	return count;
}

async function adapterReader(url) {
	const model = AiSdkModel.fromConfig({
		provider: "openai-compatible",
		model: "bench",
		apiKey: "k",
		baseURL: `${url}/v1`,
	});
	let count = 0;
	for await (const event of model.streamGenerate(
		{ messages: [userText("go")], tools: [], purpose: "turn" },
		new AbortController().signal,
	)) {
		if (event.type === "text_delta") count++;
	}
	return count;
}

/** Times `fn`; with BENCH_PROFILE=<file>, also writes a CPU profile of just that span (node --cpu-prof covers startup too). */
async function timed(fn) {
	const profile = process.env.BENCH_PROFILE;
	const inspector = profile === undefined ? undefined : new Session();
	if (inspector !== undefined) {
		inspector.connect();
		await post(inspector, "Profiler.enable");
		await post(inspector, "Profiler.start");
	}
	const started = performance.now();
	const count = await fn();
	const ms = performance.now() - started;
	if (inspector !== undefined) {
		const { profile: data } = await post(inspector, "Profiler.stop");
		writeFileSync(profile, JSON.stringify(data));
	}
	return { ms, count };
}

function post(session, method) {
	return new Promise((resolve, reject) =>
		session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
	);
}

const runs = {
	"w1-bare": () => bare(w1Script()),
	"w1-engine": () => engine(w1Script()),
	"w2-bare": () => bare(w2Script(turns)),
	"w2-engine": () => engine(w2Script(turns)),
	"w2-engine-notrace": () => engine(w2Script(turns), { trace: false }),
	"model-raw": () => modelPath("raw"),
	"model-adapter": () => modelPath("adapter"),
};
const run = runs[workload];
if (run === undefined) {
	console.error(`unknown workload "${workload}"; one of: ${Object.keys(runs).join(", ")}`);
	process.exit(2);
}
const result = await run();
process.stdout.write(`${JSON.stringify({ ...result, maxRssKb: process.resourceUsage().maxRSS })}\n`);
