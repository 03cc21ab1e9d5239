import type { SessionSummary } from "@omniloop/client";
import { useWorkflowOf } from "../app/queries.js";
import type { Transcript } from "../transcript/model.js";
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
			{lock !== null ? <AuthLock sessionId={sessionId} credential={lock.credential} /> : null}
			<Composer sessionId={sessionId} working={working} locked={lock !== null} />
		</div>
	);
}
