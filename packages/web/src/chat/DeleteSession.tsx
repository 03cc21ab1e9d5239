import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { SESSIONS_KEY } from "../app/queries.js";
import { navigate } from "../app/route.js";

/** Delete, asked twice: the first click only asks, the second (Delete it) deletes. */
export function DeleteSession({ sessionId }: { sessionId: string }) {
	const client = useQueryClient();
	const [asking, setAsking] = useState(false);
	const [error, setError] = useState<string | undefined>(undefined);
	const remove = async () => {
		try {
			await api.deleteSession(sessionId);
			await client.invalidateQueries({ queryKey: SESSIONS_KEY });
			navigate({ page: "home" });
		} catch (e) {
			setError(errorText(e));
		}
	};
	if (!asking) {
		return (
			<button type="button" className="button small" onClick={() => setAsking(true)}>
				Delete…
			</button>
		);
	}
	return (
		<fieldset className="delete-confirm" aria-label="Delete this Session?">
			<span>Delete this Session and its messages?</span>
			<button type="button" className="button small danger" onClick={() => void remove()}>
				Delete it
			</button>
			<button type="button" className="button small" onClick={() => setAsking(false)}>
				Keep it
			</button>
			{error === undefined ? null : <span className="error-text">{error}</span>}
		</fieldset>
	);
}
