import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { ServerEvent, SessionSummary } from "../api/server-types.js";
import { TabStream } from "../stream/tab-stream.js";
import { resumePoint, useChat } from "../transcript/store.js";
import { SESSIONS_KEY } from "./queries.js";

function onServerEvent(client: QueryClient, event: ServerEvent): void {
	switch (event.type) {
		case "sessions_snapshot":
			client.setQueryData<SessionSummary[]>(SESSIONS_KEY, event.sessions);
			return;
		case "session_status": {
			const sessions = client.getQueryData<SessionSummary[]>(SESSIONS_KEY);
			if (sessions === undefined || !sessions.some((s) => s.id === event.sessionId)) {
				void client.invalidateQueries({ queryKey: SESSIONS_KEY });
				return;
			}
			client.setQueryData<SessionSummary[]>(
				SESSIONS_KEY,
				sessions.map((s) => (s.id === event.sessionId ? { ...s, status: event.status, lock: event.lock } : s)),
			);
			// A Task that ended changed the Session's usage, time and maybe title.
			if (event.status === "idle") void client.invalidateQueries({ queryKey: SESSIONS_KEY });
			return;
		}
		case "session_deleted":
			client.setQueryData<SessionSummary[]>(SESSIONS_KEY, (sessions) =>
				sessions?.filter((s) => s.id !== event.sessionId),
			);
			useChat.getState().forget(event.sessionId);
			return;
		case "credential_updated":
			void client.invalidateQueries({ queryKey: ["credentials"] });
			return;
	}
}

/** Where tests reach the tab's stream (to drop it, as a network failure would). */
declare global {
	interface Window {
		omniloopStream?: TabStream;
	}
}

/** The tab's one event stream, watching the Session on screen; its frames feed the queries and the store. */
export function useTabStream(watched: string | undefined): void {
	const client = useQueryClient();
	const stream = useRef<TabStream | undefined>(undefined);
	useEffect(() => {
		const s = new TabStream({
			event: (event) => onServerEvent(client, event),
			messages: (sessionId, messages) => {
				useChat.getState().applyBatch(sessionId, messages);
				// A request's usage is in the store now: the sidebar's tokens follow it.
				if (messages.some((m) => m.type === "token_usage")) void client.invalidateQueries({ queryKey: SESSIONS_KEY });
			},
			resumeFrom: resumePoint,
			connection: (state) => useChat.getState().setConnection(state),
		});
		stream.current = s;
		window.omniloopStream = s;
		return () => {
			s.stop();
			stream.current = undefined;
		};
	}, [client]);
	useEffect(() => {
		stream.current?.watch(watched);
	}, [watched]);
}
