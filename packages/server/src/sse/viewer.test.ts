import { createServer, get, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { OmniMessage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { Flusher } from "./flusher.js";
import { SseViewer } from "./viewer.js";

const closers: (() => void)[] = [];
afterEach(() => {
	for (const close of closers.splice(0)) close();
});

const counters = { framesSent: () => {}, viewerCut: () => {} };

/** A real server whose one response becomes a viewer; resolves with it and the client's received text. */
async function viewerPair(after?: number) {
	let response!: ServerResponse;
	const server = createServer((_req, res) => {
		response = res;
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	closers.push(() => server.close());
	const received: string[] = [];
	const onReceived = new Set<() => void>();
	const connected = new Promise<void>((resolve) => {
		const req = get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				received.push(chunk);
				for (const check of onReceived) check();
			});
			resolve();
		});
		closers.push(() => req.destroy());
	});
	while (response === undefined) await new Promise((r) => setTimeout(r, 5));
	const writes: string[] = [];
	const write = response.write.bind(response);
	response.write = ((chunk: string, ...rest: never[]) => {
		writes.push(chunk);
		return write(chunk, ...rest);
	}) as ServerResponse["write"];
	const viewer = new SseViewer(
		response,
		{ viewerQueueMessages: 100, stallTimeoutMs: 1000, heartbeatMs: 50 },
		new Flusher(),
		counters,
		after,
	);
	await connected;
	/** Settles once the client has received `text`. */
	const receivedText = (text: string) =>
		new Promise<void>((resolve) => {
			const check = () => {
				if (!received.join("").includes(text)) return;
				onReceived.delete(check);
				resolve();
			};
			onReceived.add(check);
			check();
		});
	return { viewer, writes, received, receivedText, response };
}

function message(seq: number): OmniMessage {
	return { ...makeMessage("partial_text", { delta: `d${seq}` }), seq };
}

describe("SseViewer", () => {
	it("writes a burst of frames in one socket write, each frame `id: <seq>` + one `data:`", async () => {
		const { viewer, writes } = await viewerPair();
		for (let seq = 1; seq <= 50; seq++) viewer.sendMessage(message(seq));
		await new Promise((r) => setImmediate(r));
		expect(writes).toHaveLength(1);
		const frames = (writes[0] as string).split("\n\n").filter(Boolean);
		expect(frames).toHaveLength(50);
		expect(frames[0]).toMatch(/^id: 1\ndata: \{.*"seq":1.*\}$/);
	});

	it("never sends a seq twice or one at or below the resume point", async () => {
		const { viewer, writes } = await viewerPair(3);
		viewer.replay([message(2), message(3), message(4), message(5)]);
		viewer.sendMessage(message(5));
		viewer.sendMessage(message(4));
		viewer.sendMessage(message(6));
		await new Promise((r) => setImmediate(r));
		const ids = writes.join("").match(/^id: \d+$/gm);
		expect(ids).toEqual(["id: 4", "id: 5", "id: 6"]);
	});

	it("sends `: ping` heartbeats", async () => {
		const { received, receivedText } = await viewerPair();
		// Nothing is sent but heartbeats: a viewer without them keeps this waiting.
		await receivedText(": ping\n\n");
		expect(received.join("")).toContain(": ping\n\n");
	});
});
