import type { SessionSummary } from "@omniloop/client";
import { useEffect } from "react";
import { api } from "../api/endpoints.js";
import { useWorkflowOf } from "../app/queries.js";
import type { PendingApproval, Transcript } from "../transcript/model.js";
import { resumePoint, useChat } from "../transcript/store.js";
import { ApprovalCard } from "./ApprovalCard.js";
import { AuthLock } from "./AuthLock.js";
import { Composer } from "./Composer.js";
import { RetryCountdown } from "./RetryCountdown.js";
import { WorkflowSlot } from "./WorkflowSlot.js";

/**
 * The composer's place: an approval takes it while a call waits on a person; the auth notice sits
 * above a disabled composer while the Session is locked; the reconnect countdown above it while the
 * engine waits to retry. A workflow's Session gets the workflow's place instead (WorkflowSlot).
 */
export function ComposerSlot({
	sessionId,
	session,
	transcript,
}: {
	sessionId: string;
	session: SessionSummary | undefined;
	transcript: Transcript;
}) {
	const workflow = useWorkflowOf(sessionId);
	// A workflow's questions are the workflow's (its card reads them from GET /workflows), not chat's.
	useDeadPendingDropped(sessionId, workflow.isSuccess && workflow.data === undefined ? transcript.pending : []);
	if (workflow.data !== undefined) return <WorkflowSlot sessionId={sessionId} workflow={workflow.data} />;
	const working = session === undefined ? transcript.running : session.status !== "idle";
	// Until the workflows are known, a call's card could be a workflow's: none is shown yet.
	const pending = working && workflow.isSuccess ? transcript.pending : [];
	const first = pending[0];
	if (first !== undefined) {
		return <ApprovalCard key={first.correlationId} sessionId={sessionId} approval={first} more={pending.length - 1} />;
	}
	const lock = session?.lock ?? null;
	return (
		<div className="composer-slot">
			{transcript.retry !== undefined && working ? (
				<RetryCountdown sessionId={sessionId} wait={transcript.retry} />
			) : null}
			{lock !== null ? (
				<AuthLock sessionId={sessionId} credential={lock.credential} refused={refusedPrompt(transcript)} />
			) : null}
			<Composer sessionId={sessionId} working={working} locked={lock !== null} />
		</div>
	);
}

/**
 * The last Task's prompt when nothing answered it (no answer, reasoning or call after it): the one
 * the model refused. Undefined when the Task got further, or the tab holds no prompt.
 */
export function refusedPrompt(transcript: Transcript): string | undefined {
	const { order, items } = transcript;
	for (let i = order.length - 1; i >= 0; i--) {
		const item = items[order[i] as string];
		if (item === undefined) continue;
		if (item.kind === "assistant" || item.kind === "reasoning" || item.kind === "tool") return undefined;
		if (item.kind === "user" && !item.steer && item.note === undefined && !item.delegated) return item.text;
	}
	return undefined;
}

/**
 * A question the Trace left open may be over: its Task ended with no `done` (the server went down
 * while it waited). Once the stream is open and whenever the open questions change, the server's
 * list of live ones is asked; a question this tab held before asking (seq at or below the last seq
 * it held then) and not in that list is dropped. A newer one may be newer than the list and stays.
 */
/** How long after the open questions change the tab asks the server which are still open. */
const PENDING_LOOK_DELAY_MS = 1_000;

function useDeadPendingDropped(sessionId: string, pending: readonly PendingApproval[]): void {
	const open = useChat((state) => state.connection === "open");
	const asked = pending.map((p) => p.correlationId).join(" ");
	useEffect(() => {
		if (!open || asked === "") return;
		let stale = false;
		// A moment's grace: with several servers, the question's row may reach the store just after
		// its event reached this tab; a live question must not be taken for a dead one.
		const look = setTimeout(() => {
			const upToSeq = resumePoint(sessionId);
			api.pending(sessionId).then(
				(live) => {
					if (!stale)
						useChat.getState().dropPending(sessionId, { live: new Set(live.map((p) => p.correlationId)), upToSeq });
				},
				() => {
					// Not known now: the questions stay until the next look or an answer says they are over.
				},
			);
		}, PENDING_LOOK_DELAY_MS);
		return () => {
			stale = true;
			clearTimeout(look);
		};
	}, [sessionId, open, asked]);
}
