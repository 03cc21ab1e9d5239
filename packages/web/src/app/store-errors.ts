import type { StoreErrorEvent } from "@omniloop/client";
import { create } from "zustand";

/** The last `store_error` of each Session and operation (a retried write reports again: one notice, updated). */
interface StoreErrors {
	errors: StoreErrorEvent[];
	add(event: StoreErrorEvent): void;
	dismiss(sessionId: string): void;
}

export const useStoreErrors = create<StoreErrors>((set) => ({
	errors: [],
	add: (event) =>
		set((s) => ({
			errors: [...s.errors.filter((e) => !(e.sessionId === event.sessionId && e.operation === event.operation)), event],
		})),
	dismiss: (sessionId) => set((s) => ({ errors: s.errors.filter((e) => e.sessionId !== sessionId) })),
}));
