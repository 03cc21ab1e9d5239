import type { SessionSummary } from "@omniloop/client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "../api/endpoints.js";
import { titleOf } from "../app/session-title.js";

/** How long typing must pause before the server is asked (titles filter at once). */
const PAUSE_MS = 250;

/**
 * The sidebar's search: titles are filtered in the tab as the person types; the server's search
 * (`GET /chat/sessions?q=`, titles and messages) adds the Sessions whose text holds the words,
 * each with its snippet.
 */
export function useSearch(
	sessions: readonly SessionSummary[],
	search: string,
): { shown: SessionSummary[]; snippets: Map<string, string> } {
	const needle = search.trim().replace(/\s+/g, " ").toLowerCase();
	const [asked, setAsked] = useState("");
	useEffect(() => {
		const timer = setTimeout(() => setAsked(needle), PAUSE_MS);
		return () => clearTimeout(timer);
	}, [needle]);
	const found = useQuery({
		queryKey: ["sessions-search", asked],
		queryFn: () => api.searchSessions(asked),
		enabled: asked !== "",
	});
	if (needle === "") return { shown: [...sessions], snippets: new Map() };
	const hits = asked === needle ? (found.data ?? []) : [];
	const byText = new Map(hits.flatMap((hit) => (hit.match.in === "text" ? [[hit.id, hit.match.snippet]] : [])));
	const shown = sessions.filter((s) => titleOf(s).toLowerCase().includes(needle) || byText.has(s.id));
	return { shown, snippets: byText };
}
