import type { OmniMessage, ServerEvent, SessionSummary } from "@omniloop/client";
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { TabStream } from "../stream/tab-stream.js";
import { resumePoint, useChat } from "../transcript/store.js";
import { SESSIONS_KEY, WORKFLOWS_KEY } from "./queries.js";
import { useStoreErrors } from "./store-errors.js";

function onServerEvent(client: QueryClient, event: ServerEvent): void {
	switch (event.type) {
		case "sessions_snapshot":
			client.setQueryData<SessionSummary[]>(SESSIONS_KEY, event.sessions);
			return;
		case "session_status": {
			// A workflow's Session changing status is its workflow moving on (waiting, resumed, ended).
			void client.invalidateQueries({ queryKey: WORKFLOWS_KEY });
			const sessions = client.getQueryData<SessionSummary[]>(SESSIONS_KEY);
			if (sessions === undefined || !sessions.some((s) => s.id === event.sessionId)) {
				void client.invalidateQueries({ queryKey: SESSIONS_KEY });
				return;
			}
			client.setQueryData<SessionSummary[]>(
				SESSIONS_KEY,
				sessions.map((s) => (s.id === event.sessionId ? { ...s, status: event.status, lock: event.lock } : s)),
			);
			// A Task that ended changed the Session's usage, time and maybe title; an untitled
			// Session's first Task names it (by its prompt, until a title is generated).
			const untitled = sessions.some((s) => s.id === event.sessionId && s.title === null);
			if (event.status === "idle" || untitled) void client.invalidateQueries({ queryKey: SESSIONS_KEY });
			return;
		}
		case "session_deleted":
			client.setQueryData<SessionSummary[]>(SESSIONS_KEY, (sessions) =>
				sessions?.filter((s) => s.id !== event.sessionId),
			);
			useChat.getState().forget(event.sessionId);
			return;
		case "store_error":
			useStoreErrors.getState().add(event);
			return;
	}
}

/**
 * The sidebar's tokens follow each request from the stream itself: the last `token_usage` of a
 * batch carries the Session's total (the engine's; a subagent's, forwarded with an `origin`, is
 * its own). No refetch of the list per request: the list is fetched again when the Task ends, for
 * its time and title, and its total (the server's usage records) takes over then.
 */
function showUsage(client: QueryClient, sessionId: string, messages: readonly OmniMessage[]): void {
	const last = messages.findLast((m) => m.type === "token_usage" && m.origin === undefined);
	if (last?.type !== "token_usage") return;
	client.setQueryData<SessionSummary[]>(SESSIONS_KEY, (sessions) =>
		sessions?.map((s) => (s.id === sessionId ? { ...s, usage: last.session } : s)),
	);
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
				showUsage(client, sessionId, messages);
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
