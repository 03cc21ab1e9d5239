import { create } from "zustand";

/**
 * The tool cards a person opened or folded themselves, by Session and item key. Kept outside the
 * card: the transcript is virtualized, so a card scrolled off is unmounted, and it came back folded.
 * A card nobody touched follows its state (open while it runs or failed).
 */
interface OpenCards {
	open: Readonly<Record<string, boolean>>;
	set(key: string, open: boolean): void;
}

export const useOpenCards = create<OpenCards>((set) => ({
	open: {},
	set: (key, open) => set((s) => ({ open: { ...s.open, [key]: open } })),
}));
