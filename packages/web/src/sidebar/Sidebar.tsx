import { useState } from "react";
import { errorText } from "../api/http.js";
import { useSessions } from "../app/queries.js";
import type { Route } from "../app/route.js";
import { useNow } from "../app/use-now.js";
import { useChat } from "../transcript/store.js";
import { SessionItem } from "./SessionItem.js";
import { ThemeToggle } from "./ThemeToggle.js";
import { useSearch } from "./use-search.js";

/** The Sessions, newest first, with their status and usage; new Session; the usage page. */
/** `onNavigate`: a link in it was chosen (the narrow layout's drawer closes, even on the screen shown). */
export function Sidebar({ route, onNavigate }: { route: Route; onNavigate?: () => void }) {
	const sessions = useSessions();
	const connection = useChat((s) => s.connection);
	const current = route.page === "chat" ? route.sessionId : undefined;
	const [search, setSearch] = useState("");
	const { shown, snippets } = useSearch(sessions.data ?? [], search);
	// "5 min ago" stays true: told again each minute.
	const now = useNow(60_000);
	return (
		<nav
			className="sidebar"
			id="sidebar"
			aria-label="Sessions"
			onClickCapture={(event) => {
				if (event.target instanceof Element && event.target.closest("a[href]") !== null) onNavigate?.();
			}}
		>
			<div className="sidebar-head">
				<a className="brand" href="#/">
					omniloop
				</a>
				<ThemeToggle />
			</div>
			<a className="button primary new-session" href="#/">
				New Session
			</a>
			{connection === "down" ? (
				<p className="connection-down" role="status">
					Reconnecting to the server…
				</p>
			) : null}
			<input
				type="search"
				className="session-search"
				aria-label="Search the Sessions"
				placeholder="Search titles and messages"
				value={search}
				onChange={(e) => setSearch(e.target.value)}
			/>
			<ul className="session-list">
				{shown.map((s) => (
					<SessionItem key={s.id} session={s} current={s.id === current} snippet={snippets.get(s.id)} now={now} />
				))}
			</ul>
			{sessions.isError ? <p className="error-text">Could not list the Sessions: {errorText(sessions.error)}</p> : null}
			<a className="usage-link" href="#/usage" aria-current={route.page === "usage" ? "page" : undefined}>
				Usage
			</a>
		</nav>
	);
}
