import type { OmniMessage } from "@omniloop/client";
import { create } from "zustand";
import type { ConnectionState } from "../stream/tab-stream.js";
import { applyMessages, dropDeadPending } from "./apply.js";
import { EMPTY_TRANSCRIPT, type Transcript } from "./model.js";

/** A steer this tab sent that has not come back as a user text with `steer` yet. */
export interface QueuedSteer {
	id: number;
	text: string;
}

interface ChatState {
	/** Per Session: what this tab has applied of its messages (kept when switching Sessions). */
	transcripts: Record<string, Transcript>;
	queuedSteers: Record<string, QueuedSteer[]>;
	connection: ConnectionState;
	applyBatch(sessionId: string, messages: readonly OmniMessage[]): void;
	/** Drops pending questions the server says are over (see `dropDeadPending`). */
	dropPending(sessionId: string, dead: Parameters<typeof dropDeadPending>[1]): void;
	queueSteer(sessionId: string, text: string): number;
	dropSteer(sessionId: string, id: number): void;
	setConnection(state: ConnectionState): void;
	forget(sessionId: string): void;
}

let nextSteer = 1;

/** The tab's client state: small and local, fed by the tab's event stream. */
export const useChat = create<ChatState>((set) => ({
	transcripts: {},
	queuedSteers: {},
	connection: "connecting",
	applyBatch: (sessionId, messages) =>
		set((state) => {
			const prev = state.transcripts[sessionId] ?? EMPTY_TRANSCRIPT;
			const next = applyMessages(prev, messages);
			// A steer that arrived as a user text is no longer queued.
			const arrived = new Set(messages.flatMap((m) => (m.type === "user_text" ? [m.steer ?? m.text] : [])));
			const queued = state.queuedSteers[sessionId] ?? [];
			const left = queued.filter((steer) => !arrived.has(steer.text));
			return {
				transcripts: { ...state.transcripts, [sessionId]: next },
				...(left.length === queued.length ? {} : { queuedSteers: { ...state.queuedSteers, [sessionId]: left } }),
			};
		}),
	dropPending: (sessionId, dead) =>
		set((state) => {
			const prev = state.transcripts[sessionId];
			if (prev === undefined) return {};
			const next = dropDeadPending(prev, dead);
			return next === prev ? {} : { transcripts: { ...state.transcripts, [sessionId]: next } };
		}),
	queueSteer: (sessionId, text) => {
		const id = nextSteer++;
		set((state) => ({
			queuedSteers: { ...state.queuedSteers, [sessionId]: [...(state.queuedSteers[sessionId] ?? []), { id, text }] },
		}));
		return id;
	},
	dropSteer: (sessionId, id) =>
		set((state) => ({
			queuedSteers: {
				...state.queuedSteers,
				[sessionId]: (state.queuedSteers[sessionId] ?? []).filter((s) => s.id !== id),
			},
		})),
	setConnection: (connection) => set({ connection }),
	forget: (sessionId) =>
		set((state) => {
			const { [sessionId]: _gone, ...transcripts } = state.transcripts;
			return { transcripts };
		}),
}));

export function resumePoint(sessionId: string): number {
	return useChat.getState().transcripts[sessionId]?.lastSeq ?? 0;
}
