import type { SessionSummary } from "@omniloop/client";
import { useEffect } from "react";
import { titleOf } from "../app/session-title.js";

/** The tab's title names the Session and marks when it waits for you (seen from another tab). */
export function useTabTitle(session: SessionSummary | undefined): void {
	const title = titleOf(session);
	const waiting = session !== undefined && (session.status === "waiting_approval" || session.lock !== null);
	useEffect(() => {
		document.title = `${waiting ? "● " : ""}${title} · omniloop`;
		return () => {
			document.title = "omniloop";
		};
	}, [title, waiting]);
}
