import { create } from "zustand";

/** The choice a person's message has open: "Rewind to here" or "Fork from here". */
export type MessageChoice = "rewind" | "fork";

/**
 * Which message has which choice open, by Session and seq. Kept outside the message's row: the
 * transcript is virtualized, and a row the list re-renders away (scrolled off, or moved as a
 * rewind shortens the list) is unmounted, which closed a choice the person had just opened.
 */
interface MessageChoices {
	open: Readonly<Record<string, MessageChoice>>;
	set(key: string, choice: MessageChoice | undefined): void;
}

export const useMessageChoices = create<MessageChoices>((set) => ({
	open: {},
	set: (key, choice) =>
		set((s) => {
			const open: Record<string, MessageChoice> = { ...s.open };
			if (choice === undefined) delete open[key];
			else open[key] = choice;
			return { open };
		}),
}));

/** The key of a message's choice: its Session and its seq. */
export function choiceKey(sessionId: string | undefined, seq: number): string {
	return `${sessionId ?? ""}:${seq}`;
}
