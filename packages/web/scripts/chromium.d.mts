/** Debian's Chromium. */
export const CHROMIUM: string;
/** The flags every browser here starts with (headless is set by the caller). */
export const CHROMIUM_ARGS: string[];
