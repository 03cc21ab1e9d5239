import { markdownOf } from "@omniloop/client";
import { useState } from "react";
import { errorText } from "../api/http.js";
import { download, historyOf } from "./export.js";

/** Export the Session: as Markdown (to read) or as JSON (its OmniMessages, to process). */
export function ExportSession({ sessionId, title }: { sessionId: string; title: string }) {
	const [error, setError] = useState<string | undefined>(undefined);
	const save = async (as: "md" | "json") => {
		setError(undefined);
		try {
			const messages = await historyOf(sessionId);
			if (as === "json") download(`${sessionId}.json`, "application/json", `${JSON.stringify(messages, null, 2)}\n`);
			else download(`${sessionId}.md`, "text/markdown", markdownOf(title, messages));
		} catch (e) {
			setError(errorText(e));
		}
	};
	return (
		<>
			<button type="button" className="button small" onClick={() => void save("md")}>
				Export Markdown
			</button>
			<button type="button" className="button small" onClick={() => void save("json")}>
				Export JSON
			</button>
			{error === undefined ? null : <span className="error-text">{error}</span>}
		</>
	);
}
