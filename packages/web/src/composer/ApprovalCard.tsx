import { useEffect, useRef, useState } from "react";
import { api } from "../api/endpoints.js";
import { ApiError, errorText } from "../api/http.js";
import { ErrorAlert } from "../app/ErrorAlert.js";
import { ArgumentsBlock } from "../tool-cards/ArgumentsView.js";
import type { PendingApproval } from "../transcript/model.js";
import { useChat } from "../transcript/store.js";
import { steer } from "./Composer.js";
import { appendToDraft, draftOf, keyPressed, setDraft, stillTyping, typingEnded } from "./drafts.js";
import { QueuedSteers } from "./QueuedSteers.js";

/**
 * How long the buttons stay inert after the card appears: a click meant for what was there before
 * (the Send button, a line of text) must not decide a call.
 */
export const ARM_DELAY_MS = 500;

/**
 * A one-key answer (y, a, n) counts only after this pause in typing: a person typing a steer when
 * the card took the composer's place must not answer with the next letter of their sentence.
 */
export const TYPING_PAUSE_MS = 700;

type Answer = "once" | "always" | "deny";

/**
 * A call that waits on a person, in the composer's place: the full arguments, Allow once (the
 * primary action), Always for this tool in this Session, Deny. Keys: y allow once, a always,
 * n deny, while the card has focus. No backdrop, nothing dismisses it but an answer.
 *
 * Under it, the composer's draft in a small field: Steer (Enter in the field, Ctrl/Cmd+Enter
 * anywhere on the card) sends it as a steer while the call waits, as Enter does in the CLI; the
 * Task goes on waiting, and the model reads the steer with its next input. A workflow's card has
 * no steer (its Task is the workflow's).
 */
export function ApprovalCard({
	sessionId,
	approval,
	more,
	workflowId,
	decided,
}: {
	sessionId: string;
	approval: PendingApproval;
	more: number;
	/**
	 * A workflow's call: its decision goes to the workflow (durable, applied on Resume), there is
	 * no "always", and what stops is the workflow (docs/protocol.md §5.7).
	 */
	workflowId?: string;
	/** Called once a decision was accepted (a workflow's list is asked again). */
	decided?: () => void;
}) {
	const [armed, setArmed] = useState(false);
	const [sending, setSending] = useState(false);
	const [error, setError] = useState<string | undefined>(undefined);
	const [kept, setKept] = useState(() => draftOf(sessionId));
	const [steering, setSteering] = useState(false);
	const card = useRef<HTMLElement>(null);
	const steerField = useRef<HTMLTextAreaElement>(null);
	const keep = (text: string) => {
		setDraft(sessionId, text);
		setKept(text);
	};
	const sendSteer = async () => {
		const text = draftOf(sessionId);
		if (text.trim() === "" || steering || workflowId !== undefined) return;
		typingEnded();
		setSteering(true);
		setError(undefined);
		keep("");
		try {
			await steer(sessionId, text);
		} catch (e) {
			setError(errorText(e));
			// Not lost to a refusal: it comes back, unless something new was typed.
			if (draftOf(sessionId) === "") keep(text);
		} finally {
			setSteering(false);
		}
	};
	useEffect(() => {
		card.current?.focus();
		const timer = setTimeout(() => setArmed(true), ARM_DELAY_MS);
		return () => {
			clearTimeout(timer);
			// The card went (answered, or over): focus goes back to the composer, not to <body>, unless
			// it is elsewhere already (a next card takes it itself).
			requestAnimationFrame(() => {
				const active = document.activeElement;
				if (active !== null && active !== document.body) return;
				document.querySelector<HTMLTextAreaElement>(".composer-slot textarea:not(:disabled)")?.focus();
			});
		};
	}, []);
	const answer = async (choice: Answer) => {
		if (!armed || sending) return;
		setSending(true);
		setError(undefined);
		try {
			const decision = choice === "deny" ? "deny" : "allow";
			if (workflowId === undefined) await api.answer(sessionId, approval.correlationId, decision, choice === "always");
			else await api.approveWorkflow(workflowId, approval.correlationId, decision);
			decided?.();
		} catch (e) {
			// Answered from another tab first (its decision arrives on the stream), or over: its Task
			// ended before an answer (the server went down). Either way nothing waits on it: it goes.
			const over = e instanceof ApiError && (e.code === "already_answered" || e.code === "not_found");
			if (over && workflowId === undefined) useChat.getState().dropPending(sessionId, approval);
			else if (!(e instanceof ApiError && e.code === "already_answered")) setError(errorText(e));
			setSending(false);
		}
	};
	const onKey = (event: React.KeyboardEvent) => {
		if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.nativeEvent.isComposing) {
			event.preventDefault();
			void sendSteer();
			return;
		}
		// Typing in the steer field is the field's; it still counts as typing for the one-key answers.
		if (event.target === steerField.current && steerField.current !== null) {
			if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
				event.preventDefault();
				void sendSteer();
			} else keyPressed();
			return;
		}
		if (event.target instanceof HTMLButtonElement && (event.key === "Enter" || event.key === " ")) return;
		const typing = stillTyping(TYPING_PAUSE_MS);
		keyPressed();
		if (event.ctrlKey || event.metaKey || event.altKey) return;
		const keys =
			workflowId === undefined ? ({ y: "once", a: "always", n: "deny" } as const) : ({ y: "once", n: "deny" } as const);
		const choice = (keys as Record<string, Answer | undefined>)[event.key];
		if (choice !== undefined && armed && !typing) {
			event.preventDefault();
			void answer(choice);
		} else if (event.key.length === 1) {
			// Typing that went on into the card: it belongs to the draft, which the composer shows again.
			event.preventDefault();
			appendToDraft(sessionId, event.key);
			setKept(draftOf(sessionId));
		}
	};
	return (
		<section
			ref={card}
			className="approval"
			tabIndex={-1}
			onKeyDown={onKey}
			aria-labelledby="approval-title"
			aria-describedby="approval-keys"
		>
			<div className="approval-inner">
				<h2 id="approval-title">
					Allow <code>{approval.name}</code>?{more > 0 ? <span className="muted"> (+{more} more waiting)</span> : null}
				</h2>
				{approval.unsandboxed === undefined ? null : (
					<p className="error-text" role="alert">
						Unsandboxed: {approval.unsandboxed}.
					</p>
				)}
				<ArgumentsBlock name={approval.name} json={approval.arguments} />
				<div className="approval-actions">
					<button
						type="button"
						className="button primary"
						disabled={!armed || sending}
						onClick={() => void answer("once")}
					>
						Allow once <kbd>y</kbd>
					</button>
					{workflowId === undefined ? (
						<button type="button" className="button" disabled={!armed || sending} onClick={() => void answer("always")}>
							Always allow {approval.name} in this Session <kbd>a</kbd>
						</button>
					) : null}
					<button
						type="button"
						className="button danger"
						disabled={!armed || sending}
						onClick={() => void answer("deny")}
					>
						Deny <kbd>n</kbd>
					</button>
				</div>
				<p id="approval-keys" className="muted small">
					{workflowId === undefined ? (
						<>
							<span className="key-hint">Keys while this card has focus: y allow once, a always, n deny. </span>
							<button type="button" className="link-button" onClick={() => void api.abort(sessionId)}>
								Stop the Task instead
							</button>
						</>
					) : (
						<>
							A workflow's call: the decision is kept, and the workflow goes on when you Resume it. Keys: y allow, n
							deny.
						</>
					)}
				</p>
				{workflowId !== undefined ? (
					kept === "" ? null : (
						<p className="muted small" aria-live="polite">
							Your draft is kept for after the answer: <q>{kept}</q>
						</p>
					)
				) : (
					<form
						className="approval-steer"
						aria-label="Steer while it waits"
						onSubmit={(event) => {
							event.preventDefault();
							void sendSteer();
						}}
					>
						<QueuedSteers sessionId={sessionId} />
						<div className="approval-steer-row">
							<textarea
								ref={steerField}
								aria-label="Steer while it waits"
								placeholder="Steer the agent (the call still waits)"
								rows={1}
								value={kept}
								onChange={(event) => keep(event.target.value)}
							/>
							<button
								type="submit"
								className="button"
								disabled={kept.trim() === "" || steering}
								title="Send as a steer (Ctrl+Enter or ⌘+Enter)"
							>
								Steer
							</button>
						</div>
						<p className="muted small key-hint">
							Your draft: Steer sends it now (Enter here, Ctrl/⌘+Enter on the card); unsent, it is kept for after the
							answer.
						</p>
					</form>
				)}
				<ErrorAlert error={error} />
			</div>
		</section>
	);
}
