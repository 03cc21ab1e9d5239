import type { SessionSummary } from "@omniloop/client";
import { useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useRef, useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { SESSIONS_KEY } from "../app/queries.js";
import { hrefOf } from "../app/route.js";
import { titleOf } from "../app/session-title.js";
import { focusBack } from "../app/use-focus.js";
import { formatTokens } from "../usage/format.js";
import { StatusBadge } from "./StatusBadge.js";
import { lastActiveText } from "./when.js";

/** One Session of the sidebar: its link, and Rename, which turns the title into a field in place. */
export function SessionItem({
	session,
	current,
	snippet,
	now,
}: {
	session: SessionSummary;
	current: boolean;
	/** Where a search found the words in its messages. */
	snippet?: string | undefined;
	/** The instant every row's "last active" is told against (the sidebar's clock, ticking each minute). */
	now: number;
}) {
	const [editing, setEditing] = useState(false);
	const title = titleOf(session);
	return (
		<li className="session-item">
			{editing ? (
				<RenameField session={session} done={() => setEditing(false)} />
			) : (
				<a
					className="session-link"
					href={hrefOf({ page: "chat", sessionId: session.id })}
					aria-current={current ? "page" : undefined}
					data-session-id={session.id}
				>
					<span className="session-title">{title}</span>
					<span className="session-meta">
						<StatusBadge status={session.status} locked={session.lock !== null} />
						<time
							className="session-when"
							dateTime={new Date(session.updatedAt).toISOString()}
							title={`Last active ${new Date(session.updatedAt).toLocaleString()}`}
						>
							{lastActiveText(session, now)}
						</time>
						<span className="muted" title="tokens used">
							{formatTokens(session.usage.total)} tokens
						</span>
					</span>
					{snippet === undefined ? null : <span className="session-snippet muted">{snippet}</span>}
				</a>
			)}
			{editing ? null : (
				<button
					type="button"
					className="session-rename"
					aria-label={`Rename ${title}`}
					title="Rename"
					onClick={() => setEditing(true)}
				>
					✎
				</button>
			)}
		</li>
	);
}

/** Enter (or leaving the field) saves the title, Esc keeps the old one; the server's refusal is shown. */
function RenameField({ session, done }: { session: SessionSummary; done: () => void }) {
	const client = useQueryClient();
	const [text, setText] = useState(session.title ?? "");
	const [error, setError] = useState<string | undefined>(undefined);
	const [saving, setSaving] = useState(false);
	// Esc ends the edit: the blur that may follow must not save what it cancelled.
	const over = useRef(false);
	const finish = () => {
		over.current = true;
		done();
		// The field is gone: the keyboard goes back to the Session's link, not to <body>.
		focusBack(`.session-link[data-session-id="${CSS.escape(session.id)}"]`);
	};
	const save = async () => {
		if (saving || over.current) return;
		if (text.trim() === (session.title ?? "")) {
			finish();
			return;
		}
		setSaving(true);
		try {
			const renamed = await api.rename(session.id, text);
			client.setQueryData<SessionSummary[]>(SESSIONS_KEY, (sessions) =>
				sessions?.map((s) => (s.id === session.id ? { ...s, title: renamed.title } : s)),
			);
			finish();
		} catch (e) {
			setError(errorText(e));
			setSaving(false);
		}
	};
	const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
		if (e.key === "Enter") {
			e.preventDefault();
			void save();
		} else if (e.key === "Escape") {
			e.preventDefault();
			finish();
		}
	};
	return (
		<div className="session-rename-field">
			<input
				// biome-ignore lint/a11y/noAutofocus: the person just asked to type the new title here.
				autoFocus
				aria-label="New title"
				maxLength={200}
				value={text}
				disabled={saving}
				onChange={(e) => {
					setText(e.target.value);
					setError(undefined);
				}}
				onKeyDown={onKey}
				onBlur={() => void save()}
			/>
			{error === undefined ? null : (
				<span className="error-text" role="alert">
					{error}
				</span>
			)}
		</div>
	);
}
