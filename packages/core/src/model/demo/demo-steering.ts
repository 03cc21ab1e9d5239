/** Words that ask the demo to stop where it is. */
const STOP = /\b(stop|enough|halt|that'?s all|no more|skip (it|the rest))\b/i;

/**
 * What the demo says about steering sent while it worked: it repeats it, so a person sees it
 * arrived, and a steer that asks to stop ends the Task with what was found so far. A script
 * cannot follow anything else; it says so.
 */
export function steeringReply(steering: readonly string[]): { note: string; stop: boolean } {
	if (steering.length === 0) return { note: "", stop: false };
	const said = steering.map((text) => `"${clip(text, 80)}"`).join(" and ");
	const stop = steering.some((text) => STOP.test(text));
	const note = stop
		? `You said ${said}, so I'm stopping here.`
		: `You said ${said}; a script cannot act on that, but a real model would take it into account from here.`;
	return { note, stop };
}

/** `text` on one line, at most `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
