import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { tokenFrom, useToken } from "../api/token.js";
import { ErrorAlert } from "./ErrorAlert.js";

/**
 * The tab has no token, or the server refused the one it has: a field to paste it, or the whole
 * URL `omniloop serve` printed. Nothing else of the app shows until the server takes one.
 */
export function TokenGate({ refused }: { refused: boolean }) {
	const client = useQueryClient();
	const [value, setValue] = useState("");
	const [error, setError] = useState<string | undefined>(undefined);
	const save = (event: FormEvent) => {
		event.preventDefault();
		const token = tokenFrom(value);
		if (token === undefined) {
			setError("That holds no token: paste the token, or the whole URL omniloop serve printed.");
			return;
		}
		// What was fetched (or refused) with another token is not this one's.
		client.clear();
		useToken.getState().use(token);
	};
	return (
		<main className="token-gate">
			<form className="auth-lock" onSubmit={save} aria-labelledby="token-gate-title">
				<h1 id="token-gate-title">
					{refused ? "The server refused this tab's token" : "This tab needs the server's token"}
				</h1>
				<p>
					Open the URL that <code>omniloop serve</code> printed as its first line (it ends in <code>/#token=…</code>),
					or paste it or the token here. The token is also in <code>$OMNILOOP_HOME/server.json</code>. This browser
					keeps it for this address only.
				</p>
				<div className="auth-lock-row">
					<label className="sr-only" htmlFor="server-token">
						The server's token or URL
					</label>
					<input
						id="server-token"
						type="password"
						autoComplete="off"
						value={value}
						onChange={(e) => {
							setValue(e.target.value);
							setError(undefined);
						}}
						placeholder="token, or http://127.0.0.1:4317/#token=…"
					/>
					<button type="submit" className="button primary" disabled={value.trim() === ""}>
						Use this token
					</button>
				</div>
				<ErrorAlert error={error} />
			</form>
		</main>
	);
}
