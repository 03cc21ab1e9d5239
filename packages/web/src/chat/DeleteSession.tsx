import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { SESSIONS_KEY } from "../app/queries.js";
import { navigate } from "../app/route.js";
import { escapeCancels, focusBack, useFocusOnMount } from "../app/use-focus.js";

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
	const keep = () => {
		setAsking(false);
		focusBack(".delete-session");
	};
	if (!asking) {
		return (
			<button type="button" className="button small delete-session" onClick={() => setAsking(true)}>
				Delete…
			</button>
		);
	}
	return <DeleteConfirm remove={() => void remove()} keep={keep} error={error} />;
}

/** The question, with the focus on the safe answer (Keep it); Esc keeps it too. */
function DeleteConfirm({ remove, keep, error }: { remove: () => void; keep: () => void; error: string | undefined }) {
	const safe = useFocusOnMount<HTMLButtonElement>();
	return (
		<fieldset className="delete-confirm" aria-label="Delete this Session?" onKeyDown={escapeCancels(keep)}>
			<span>Delete this Session and its messages?</span>
			<button type="button" className="button small danger" onClick={remove}>
				Delete it
			</button>
			<button ref={safe} type="button" className="button small" onClick={keep}>
				Keep it
			</button>
			{error === undefined ? null : <span className="error-text">{error}</span>}
		</fieldset>
	);
}
