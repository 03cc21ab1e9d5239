import type { OmniMessage } from "@omniloop/core";
import type { ServerProcess } from "../cluster-processes.js";
import { eventually, readFrames } from "../harness.js";

/**
 * A viewer that disconnects and reconnects with Last-Event-ID every 15–150 ms, each time on a
 * random process (a dead one refuses, a stopped one keeps it waiting until the cut): every seq it
 * gets must be above every seq before it, and its complete messages must be the history.
 */
export function reconnectingViewer(servers: ServerProcess[], sessionId: string, pick: (n: number) => number) {
	const seen: OmniMessage[] = [];
	const errors: string[] = [];
	let last = 0;
	let stopped = false;
	let connections = 0;
	const loop = (async () => {
		while (!stopped) {
			const server = servers[pick(servers.length)] as ServerProcess;
			const cut = new AbortController();
			// The cut is the behaviour under test (a flaky network), not a wait for something.
			const timer = setTimeout(() => cut.abort(), 15 + pick(136));
			const after = last;
			try {
				const response = await server.api(`/chat/sessions/${sessionId}/events`, {
					headers: { "last-event-id": String(after) },
					signal: cut.signal,
				});
				connections++;
				await readFrames(response, (frame) => {
					if (frame.id === undefined) return false;
					const message = JSON.parse(frame.data) as OmniMessage;
					if (message.seq <= last)
						errors.push(
							`seq ${message.seq} (${message.type}) after ${last} (Last-Event-ID ${after}, ${server.origin})`,
						);
					else last = message.seq;
					seen.push(message);
					return false;
				});
			} catch {
				// Cut, refused (killed) or reset: reconnect.
			} finally {
				clearTimeout(timer);
			}
		}
	})();
	return {
		seen,
		errors,
		get connections() {
			return connections;
		},
		/** Once it has got up to `lastSeq` (the history's last), it stops. */
		async finish(lastSeq: number): Promise<void> {
			await eventually(() => (last >= lastSeq || errors.length > 0 ? true : undefined), 30_000);
			stopped = true;
			await loop;
		},
	};
}

export type Viewer = ReturnType<typeof reconnectingViewer>;
