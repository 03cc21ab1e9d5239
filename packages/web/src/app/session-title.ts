/**
 * A Session's title as the app shows it: "Untitled Session" when it has none — or a blank one (a
 * Session titled before the server refused empty titles).
 */
export function titleOf(session: { title: string | null } | undefined): string {
	const title = session?.title?.trim();
	return title === undefined || title === "" ? "Untitled Session" : title;
}
