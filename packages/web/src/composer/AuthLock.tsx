import { type FormEvent, useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { ErrorAlert } from "../app/ErrorAlert.js";
import { putBackDraft } from "./drafts.js";

/**
 * The Session is locked: the model refused its credential. A new value (`PUT /credentials/:name`)
 * unlocks it through `credential_updated`, also when it is set from elsewhere. Dismissing the
 * notice only unlocks it (nothing is retried): the refused prompt, when the tab knows it, goes back
 * into the composer's draft to be sent again.
 */
export function AuthLock({
	sessionId,
	credential,
	refused,
}: {
	sessionId: string;
	credential: string;
	/** The prompt whose Task the model refused (no answer came to it), if the tab holds it. */
	refused?: string | undefined;
}) {
	const [value, setValue] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>(undefined);
	const run = async (call: () => Promise<unknown>) => {
		setBusy(true);
		setError(undefined);
		try {
			await call();
		} catch (e) {
			setError(errorText(e));
		} finally {
			setBusy(false);
		}
	};
	const save = (event: FormEvent) => {
		event.preventDefault();
		if (value === "") return;
		void run(() => api.setCredential(credential, value)).then(() => setValue(""));
	};
	return (
		<form className="auth-lock" onSubmit={save} aria-labelledby="auth-lock-title">
			<p id="auth-lock-title">
				<strong>Locked:</strong> the model refused the credential <code>{credential}</code>. Enter a new value to unlock
				this Session.
			</p>
			<div className="auth-lock-row">
				<label className="sr-only" htmlFor="credential-value">
					New value of {credential}
				</label>
				<input
					id="credential-value"
					type="password"
					autoComplete="off"
					value={value}
					onChange={(e) => setValue(e.target.value)}
					placeholder={`new value of ${credential}`}
				/>
				<button type="submit" className="button primary" disabled={busy || value === ""}>
					Save and unlock
				</button>
				<button
					type="button"
					className="button"
					disabled={busy}
					onClick={() =>
						void run(async () => {
							await api.dismissLock(sessionId);
							if (refused !== undefined) putBackDraft(sessionId, refused);
						})
					}
				>
					Dismiss
				</button>
			</div>
			<ErrorAlert error={error} />
		</form>
	);
}
