/**
 * A Session's "last active" in the sidebar. Its `updatedAt` moves when a Task ends, so while one
 * runs (working, or waiting for a person's answer) the Session is active now, not when its last
 * Task ended.
 */
export function lastActiveText(session: { status: string; updatedAt: number }, now: number): string {
	return session.status === "idle" ? sinceText(session.updatedAt, now) : "now";
}

/**
 * When a Session was last active, as the sidebar says it: short and relative while recent ("just
 * now", "5 min ago", "3 h ago", "yesterday"), then a date ("Mar 4", or "Mar 4, 2025" in another
 * year), against `now`: the sidebar passes one clock to every row.
 */
export function sinceText(at: number, now: number): string {
	const seconds = Math.max(0, Math.round((now - at) / 1000));
	if (seconds < 60) return "just now";
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes} min ago`;
	const hours = Math.floor(minutes / 60);
	const then = new Date(at);
	const today = new Date(now);
	if (hours < 24 && then.getDate() === today.getDate()) return `${hours} h ago`;
	const yesterday = new Date(now);
	yesterday.setDate(today.getDate() - 1);
	if (sameDay(then, yesterday)) return "yesterday";
	const sameYear = then.getFullYear() === today.getFullYear();
	return then.toLocaleDateString("en-US", {
		month: "short",
		day: "numeric",
		...(sameYear ? {} : { year: "numeric" }),
	});
}

function sameDay(a: Date, b: Date): boolean {
	return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
