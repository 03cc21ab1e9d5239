import { ConnectionError, THINKING_LEVELS, type ThinkingLevel } from "@omniloop/client";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { ErrorAlert } from "../app/ErrorAlert.js";
import { SESSIONS_KEY } from "../app/queries.js";
import { useChat } from "../transcript/store.js";
import { parseComposer } from "./commands.js";
import { draftOf, keyPressed, onDraftPutBack, setDraft, setThinkingOf, thinkingOf, typingEnded } from "./drafts.js";
import { PasteChips } from "./PasteChips.js";
import { messageOf, usePastes } from "./pastes.js";
import { QueuedSteers } from "./QueuedSteers.js";

/**
 * Where a person writes. Idle: Enter sends a Task. Working: Enter queues a steer (shown as queued
 * until the agent takes it), and Stop (or Esc in the composer) ends the Task. `/compact` and `/title` are commands.
 */
export function Composer({
	sessionId,
	working,
	locked,
	closed,
}: {
	sessionId: string;
	working: boolean;
	locked: boolean;
	/** Why the composer takes nothing now (said in its place, not as a refusal after typing). */
	closed?: string;
}) {
	// The draft outlives the composer: an approval card takes its place while a call waits.
	const [text, setTextState] = useState(() => draftOf(sessionId));
	const setText = (next: string | ((now: string) => string)) =>
		setTextState((now) => {
			const value = typeof next === "function" ? next(now) : next;
			setDraft(sessionId, value);
			return value;
		});
	// A message put back (a refused prompt, its lock dismissed) shows in the composer on screen.
	useEffect(
		() =>
			onDraftPutBack((id) => {
				if (id === sessionId) setTextState(draftOf(id));
			}),
		[sessionId],
	);
	const [error, setError] = useState<string | undefined>(undefined);
	// A send that found no server: its error goes once the tab's stream, having lost the server
	// too, reaches it again (not at once: the stream may not have noticed yet).
	const [noServer, setNoServer] = useState(false);
	const lostSince = useRef(false);
	const connection = useChat((s) => s.connection);
	useEffect(() => {
		if (!noServer) return;
		if (connection !== "open") lostSince.current = true;
		else if (lostSince.current) {
			lostSince.current = false;
			setNoServer(false);
			setError(undefined);
		}
	}, [connection, noServer]);
	const [info, setInfo] = useState<string | undefined>(undefined);
	const [thinking, setThinkingState] = useState(() => thinkingOf(sessionId));
	const setThinking = (level: ThinkingLevel | "") => {
		setThinkingOf(sessionId, level);
		setThinkingState(level);
	};
	const box = useRef<HTMLTextAreaElement>(null);
	// Shown with nothing focused (a Session just started or opened, from the home screen): it takes
	// the keys. Not on a touch screen, where a focused field raises the keyboard over the chat.
	useEffect(() => {
		if (!matchMedia("(pointer: fine)").matches) return;
		requestAnimationFrame(() => {
			if (document.activeElement === null || document.activeElement === document.body) box.current?.focus();
		});
	}, []);
	const client = useQueryClient();
	const pastes = usePastes();

	const submit = async () => {
		const pasted = pastes.pastes;
		const intent =
			pasted.length === 0 ? parseComposer(text) : ({ kind: "text", text: messageOf(text, pasted) } as const);
		if (intent.kind === "empty" || locked || closed !== undefined) return;
		setError(undefined);
		setInfo(undefined);
		const typed = text;
		setText("");
		pastes.clear();
		try {
			if (intent.kind === "compact") {
				const compactability = await api.compactability(sessionId);
				if (compactability !== "ok") {
					setInfo(`Nothing to compact (${compactability.replace("_", " ")}).`);
					return;
				}
				await api.compact(sessionId);
			} else if (intent.kind === "title") {
				const title = await api.title(sessionId);
				await client.invalidateQueries({ queryKey: SESSIONS_KEY });
				setInfo(`Titled: ${title}`);
			} else if (working) {
				await steer(sessionId, intent.text);
			} else {
				await api.send(sessionId, intent.text, thinking === "" ? undefined : thinking);
			}
		} catch (e) {
			setError(errorText(e));
			setNoServer(e instanceof ConnectionError);
			// What was typed is not lost to a refusal: it comes back, unless something new was typed.
			setText((now) => (now === "" ? typed : now));
			pastes.restore(pasted);
		}
	};
	const onSubmit = (event: FormEvent) => {
		event.preventDefault();
		void submit();
	};
	const stop = () => void api.abort(sessionId).catch((e: unknown) => setError(errorText(e)));
	const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
		if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
			event.preventDefault();
			typingEnded();
			void submit();
		} else if (
			event.key === "Escape" &&
			working &&
			!event.nativeEvent.isComposing &&
			!event.repeat &&
			!event.defaultPrevented
		) {
			// Esc stops the working Task, as in the CLI (the Stop button's stop); the draft stays.
			// Not while an input method composes: there Esc cancels the composition.
			event.preventDefault();
			stop();
		} else keyPressed();
	};
	return (
		<form className="composer" onSubmit={onSubmit} aria-label="Composer">
			<QueuedSteers sessionId={sessionId} />
			<PasteChips pastes={pastes.pastes} remove={pastes.remove} />
			<div className="composer-row">
				<textarea
					ref={box}
					aria-label={working ? "Steer the agent" : "Message"}
					placeholder={
						closed !== undefined
							? closed
							: locked
								? "Locked until the credential is updated"
								: working
									? "The agent is working: type to steer it"
									: "Ask the agent… (/compact, /title)"
					}
					value={text}
					disabled={locked || closed !== undefined}
					rows={2}
					onChange={(e) => setText(e.target.value)}
					onKeyDown={onKeyDown}
					onPaste={pastes.onPaste}
				/>
				<div className="composer-actions">
					<select
						aria-label="Thinking level"
						title="How much the model thinks (for the next Task)"
						value={thinking}
						onChange={(e) => setThinking(e.target.value as ThinkingLevel | "")}
					>
						<option value="">thinking: default</option>
						{THINKING_LEVELS.map((level) => (
							<option key={level} value={level}>
								thinking: {level}
							</option>
						))}
					</select>
					<button
						type="submit"
						className="button primary"
						disabled={locked || closed !== undefined || (text.trim() === "" && pastes.pastes.length === 0)}
					>
						{working ? "Steer" : "Send"}
					</button>
					{working ? (
						<button type="button" className="button danger" onClick={stop} title="Stop the Task (Esc)">
							Stop
						</button>
					) : null}
				</div>
			</div>
			{closed === undefined ? null : (
				<p className="muted small" role="status">
					{closed}
				</p>
			)}
			{info === undefined ? null : (
				<p className="muted small" role="status">
					{info}
				</p>
			)}
			<ErrorAlert error={error} />
		</form>
	);
}

/**
 * A steer: shown as queued at once; when no Task runs any more, it goes as a new message instead.
 * The approval card sends its draft with it too (a steer while a call waits on a person).
 */
export async function steer(sessionId: string, text: string): Promise<void> {
	const chat = useChat.getState();
	const id = chat.queueSteer(sessionId, text);
	try {
		const { accepted } = await api.steer(sessionId, text);
		if (!accepted) {
			chat.dropSteer(sessionId, id);
			await api.send(sessionId, text);
		}
	} catch (error) {
		chat.dropSteer(sessionId, id);
		throw error;
	}
}
