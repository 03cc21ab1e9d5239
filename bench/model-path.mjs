// The model path: the fake provider streaming N text deltas over HTTP, read by our adapter
// (AiSdkModel → AI SDK provider → SSE), against a raw fetch + eventsource-parser reader of the
// same stream. Run after `npm run build`: node bench/model-path.mjs [deltas] [runs]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { AiSdkModel, userText } from "@omniloop/core";
import { EventSourceParserStream } from "eventsource-parser/stream";

const deltas = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 5);

const child = spawn(process.execPath, [new URL("./fake-server-child.mjs", import.meta.url).pathname, String(deltas)], {
	stdio: ["ignore", "pipe", "inherit"],
});
const [chunk] = await once(child.stdout, "data");
const url = String(chunk).trim();

const body = (stream) =>
	JSON.stringify({
		model: "bench",
		stream: true,
		stream_options: { include_usage: true },
		messages: [{ role: "user", content: "go" }],
		...stream,
	});

/** The baseline: fetch, parse SSE, JSON.parse each event, count content deltas. */
async function rawReader() {
	const response = await fetch(`${url}/v1/chat/completions`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: "Bearer k" },
		body: body({}),
	});
	let count = 0;
	const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
	for await (const event of events) {
		if (event.data === "[DONE]") break;
		const parsed = JSON.parse(event.data);
		if (parsed.choices?.[0]?.delta?.content) count++;
	}
	return count;
}

const model = AiSdkModel.fromConfig({
	provider: "openai-compatible",
	model: "bench",
	apiKey: "k",
	baseURL: `${url}/v1`,
});

async function adapterReader() {
	let count = 0;
	const request = { messages: [userText("go")], tools: [], purpose: "turn" };
	for await (const event of model.streamGenerate(request, new AbortController().signal)) {
		if (event.type === "text_delta") count++;
	}
	return count;
}

async function measure(read) {
	const started = performance.now();
	const count = await read();
	const seconds = (performance.now() - started) / 1000;
	if (count !== deltas) throw new Error(`read ${count} deltas, expected ${deltas}`);
	return count / seconds;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const raw = [];
const adapter = [];
await measure(rawReader); // warm-up, both paths
await measure(adapterReader);
for (let i = 0; i < runs; i++) {
	raw.push(await measure(rawReader));
	adapter.push(await measure(adapterReader));
}
const r = median(raw);
const a = median(adapter);
console.log(`deltas per run: ${deltas}, runs: ${runs} (median)`);
console.log(`raw fetch + eventsource-parser: ${Math.round(r).toLocaleString("en")} events/s`);
console.log(`AiSdkModel (openai-compatible):  ${Math.round(a).toLocaleString("en")} events/s`);
console.log(`adapter cost: ${(r / a).toFixed(2)}× the raw reader's time`);
child.kill("SIGTERM");
