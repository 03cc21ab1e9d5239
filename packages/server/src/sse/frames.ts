import type { OmniMessage } from "@omniloop/core";

/** One OmniMessage a frame: `id: <seq>` so a client can resume with Last-Event-ID. */
export function messageFrame(message: OmniMessage): string {
	return `id: ${message.seq}\ndata: ${JSON.stringify(message)}\n\n`;
}

/** A server event of `GET /events` (sessions_snapshot, session_status, …): `data` only, no id. */
export function eventFrame(event: { type: string; [key: string]: unknown }): string {
	return `data: ${JSON.stringify(event)}\n\n`;
}

export const HEARTBEAT_FRAME = ": ping\n\n";
