import { connect, type Socket } from "node:net";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, onCleanup, readFrames, startServer } from "./harness.js";

/** Opens an SSE request on a raw socket that never reads what comes back. */
function stalledViewer(port: number, path: string, token: string): Promise<Socket> {
	return new Promise((resolve) => {
		const socket = connect(port, "127.0.0.1", () => {
			socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
			socket.pause();
			resolve(socket);
		});
		socket.on("error", () => {});
		onCleanup(() => {
			socket.destroy();
		});
	});
}

describe("a viewer that stops reading", () => {
	it("is cut off (socket destroyed) once its stall timeout passes while the Task and other viewers go on; a half-closed one is let go at once", {
		timeout: 60_000,
	}, async () => {
		const chunk = "x".repeat(64 * 1024);
		const chunks = Array.from({ length: 300 }, () => chunk);
		const model = new ScriptedModel([[{ type: "text", text: chunks.join(""), chunks }]], { stepDelayMs: 0 });
		// Long enough that the Task's own reader, in this process beside the server, is never taken
		// for a stalled one on a busy machine (it reads 20 MB); the paused viewer waits it out.
		const stallTimeoutMs = 5000;
		const t = await startServer({ model, server: { stallTimeoutMs } });
		const id = await t.createSession();
		const paused = await stalledViewer(t.server.port, `/chat/sessions/${id}/events`, t.server.token);
		const halfClosed = await stalledViewer(t.server.port, `/chat/sessions/${id}/events`, t.server.token);
		halfClosed.end();
		const metric = async (name: string) => {
			const text = await (await t.api("/metrics")).text();
			return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
		};
		// A half-closed socket (the client's FIN, CLOSE_WAIT on our side) is let go at once, not leaked.
		await eventually(async () => ((await metric("omniloop_sse_viewers")) === 1 ? true : undefined));

		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const { frames } = await readFrames(stream);
		expect(frames.at(-1)?.data).toContain('"type":"done"');
		expect(frames.filter((f) => f.data.includes('"partial_text"'))).toHaveLength(300);

		await eventually(
			async () => ((await metric('omniloop_sse_viewers_cut_total{reason="stalled"}')) === 1 ? true : undefined),
			stallTimeoutMs * 4,
		);
		await eventually(async () => ((await metric("omniloop_sse_viewers")) === 0 ? true : undefined));
		paused.resume();
		await eventually(() => (paused.destroyed ? true : undefined));
	});
});
