import { createContext, useContext, useState } from "react";
import { errorText } from "../api/http.js";

/** The Session the chat shows, for the buttons on its items and panels (undo, restore, rewind, fork). */
export const SessionIdContext = createContext<string | undefined>(undefined);

/** Runs a Session action once at a time; its error is shown beside the button. */
export function useAction(run: (sessionId: string) => Promise<unknown>) {
	const sessionId = useContext(SessionIdContext);
	const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
	const act = () => {
		if (sessionId === undefined || state.busy) return;
		setState({ busy: true });
		run(sessionId).then(
			() => setState({ busy: false }),
			(error: unknown) => setState({ busy: false, error: errorText(error) }),
		);
	};
	return { act, ...state };
}

export function ActionButton({ label, action }: { label: string; action: ReturnType<typeof useAction> }) {
	return (
		<>
			<button type="button" className="button small ghost" onClick={action.act} disabled={action.busy}>
				{label}
			</button>
			{action.error === undefined ? null : <span className="error-text">{action.error}</span>}
		</>
	);
}
