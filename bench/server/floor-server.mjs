// The floor of omniloop's server path, for bench/server/run.mjs: what any server built on
// omniloop's interfaces must do per message and per start, and nothing else. Like the engine
// bench's floor (bench/contenders/floor.mjs), it reads the same model through the same two
// interfaces — the model's async iterable (ModelAdapter.streamGenerate) relayed through an async
// iterator of messages (Session.run) — and adds what the protocol asks of every message: an id, a
// ts and a seq, its JSON once, a replay window a reconnecting viewer resumes from, and its frame
// written as it comes. Tasks are started over HTTP as omniloop's are (the same client, the same
// request), with a token checked: the start's floor is node's HTTP and a JSON body, nothing more.
// No engine, no Trace, no store, no router: what omniloop spends beyond this is theirs.
import { createServer } from "node:http";
import { PacedModel } from "./paced-model.mjs";

/**
 * The floor server on loopback for `sessions` + 1 viewers (the last one stalls); `deltaOf(text)`
 * picks a Task's delta from its prompt. Resolves once it listens.
 */
export async function floorServer({ sessions, rate, seconds, token, deltaOf }) {
	const model = new PacedModel({ rate, seconds, deltaOf: (request) => deltaOf(request.text) });
	/** By Session index: its viewer's response, once connected. */
	const viewers = new Map();
	const bearer = `Bearer ${token}`;
	let framesWritten = 0;

	/** Session.run's shape: the model's events relayed as messages, each with its id, ts and seq. */
	async function* messages(request, signal) {
		let seq = 0;
		for await (const event of model.streamGenerate(request, signal)) {
			if (event.type !== "text_delta") continue;
			seq++;
			yield { id: `m${seq}`, ts: Date.now(), seq, type: "partial_text", delta: event.delta };
		}
		yield { id: `m${seq + 1}`, ts: Date.now(), seq: seq + 1, type: "done" };
	}

	/** One Task: every message kept for a reconnecting viewer and written to the viewer as it comes. */
	async function run(index, text) {
		const window = [];
		const controller = new AbortController();
		for await (const message of messages({ text }, controller.signal)) {
			window.push(message);
			const res = viewers.get(index);
			if (res === undefined || res.destroyed) continue;
			res.write(`id: ${message.seq}\ndata: ${JSON.stringify(message)}\n\n`);
			framesWritten++;
		}
		viewers.get(index)?.end();
	}

	const server = createServer((req, res) => {
		if (req.headers.authorization !== bearer) {
			res.writeHead(401).end();
			return;
		}
		const [, , , id, action] = req.url.split("/");
		const index = Number(id);
		if (req.method === "GET" && action === "events") {
			res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
			res.flushHeaders();
			viewers.set(index, res);
			return;
		}
		let body = "";
		req.setEncoding("utf8");
		req.on("data", (chunk) => {
			body += chunk;
		});
		req.on("end", () => {
			const { text } = JSON.parse(body);
			void run(index, text);
			res.writeHead(202, { "content-type": "application/json" });
			res.end(JSON.stringify({ accepted: true, sessionId: id }));
		});
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	const origin = `http://127.0.0.1:${server.address().port}`;
	const ids = Array.from({ length: sessions + 1 }, (_, i) => String(i));
	return {
		urls: ids.map((id) => `${origin}/chat/sessions/${id}/events`),
		tasks: { origin, ids },
		async start() {},
		async stop() {
			for (const res of viewers.values()) res.destroy();
			server.close();
			return { framesWritten };
		},
	};
}
