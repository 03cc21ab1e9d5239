import type { SessionSummary } from "@omniloop/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { SESSIONS_KEY, useSessions } from "../app/queries.js";
import { hrefOf } from "../app/route.js";
import { titleOf } from "../app/session-title.js";
import { StatusBadge } from "../sidebar/StatusBadge.js";
import type { Transcript } from "../transcript/model.js";
import { ContextGauge } from "./ContextGauge.js";
import { DeleteSession } from "./DeleteSession.js";
import { ExportSession } from "./ExportSession.js";
import { ModelPicker } from "./ModelPicker.js";

/**
 * The Session's title (with "generate"), model (a picker: ModelPicker), status and how full its context is. On a narrow
 * window the actions and the AGENTS.md line fold behind one button, so the transcript keeps the
 * screen (unfolded they took a third of a phone's height).
 */
export function ChatHeader({
	sessionId,
	session,
	transcript,
}: {
	sessionId: string;
	session: SessionSummary | undefined;
	transcript: Transcript;
}) {
	const client = useQueryClient();
	const detail = useQuery({ queryKey: ["session-detail", sessionId], queryFn: () => api.detail(sessionId) });
	const reload = useMutation({
		mutationFn: () => api.reloadInstructions(sessionId),
		onSuccess: () => client.invalidateQueries({ queryKey: ["session-detail", sessionId] }),
	});
	const instructions = detail.data?.instructions ?? [];
	const title = useMutation({
		mutationFn: () => api.title(sessionId),
		onSuccess: () => client.invalidateQueries({ queryKey: SESSIONS_KEY }),
	});
	const [unfolded, setUnfolded] = useState(false);
	return (
		<header className={unfolded ? "chat-header unfolded" : "chat-header"}>
			<div className="chat-top">
				<div className="chat-title">
					{/* Nothing until the list is in (no "Untitled" flash on a reload). */}
					<h1>{session === undefined ? "" : titleOf(session)}</h1>
					<button
						type="button"
						className="button small chat-more"
						aria-expanded={unfolded}
						aria-controls={`chat-actions-${sessionId}`}
						onClick={() => setUnfolded((open) => !open)}
					>
						{unfolded ? "Less" : "More…"}
					</button>
				</div>
				<div className="chat-actions" id={`chat-actions-${sessionId}`}>
					<button
						type="button"
						className="button small"
						onClick={() => title.mutate()}
						disabled={title.isPending || transcript.order.length === 0}
					>
						{title.isPending ? "Naming…" : "Generate title"}
					</button>
					<ExportSession sessionId={sessionId} title={titleOf(session)} />
					<DeleteSession sessionId={sessionId} />
				</div>
			</div>
			<div className="chat-meta">
				{session === undefined ? null : (
					<>
						<StatusBadge status={session.status} locked={session.lock !== null} />
						<span className="muted">
							{session.agentId} · <ModelPicker sessionId={sessionId} session={session} />
						</span>
						<span className="muted workspace" title={session.workspaceDir}>
							{session.workspaceDir}
						</span>
						{session.parent === undefined ? null : <ForkedFrom parentId={session.parent.sessionId} />}
					</>
				)}
				<ContextGauge tokens={transcript.contextTokens} />
			</div>
			<section className="chat-instructions muted" aria-label="Instructions">
				{instructions.length === 0
					? "No AGENTS.md"
					: `AGENTS.md: ${instructions.map((f) => `${f.path}${f.truncated ? " (cut)" : ""}`).join(", ")}`}{" "}
				<button
					type="button"
					className="button small ghost"
					onClick={() => reload.mutate()}
					disabled={reload.isPending || session?.status !== "idle"}
				>
					Reload
				</button>
			</section>
			{title.isError ? <p className="error-text">Could not name the Session: {errorText(title.error)}</p> : null}
		</header>
	);
}

/** A fork names the Session it came from, a link to it (docs/checkpoints.md). */
function ForkedFrom({ parentId }: { parentId: string }) {
	const parent = useSessions().data?.find((s) => s.id === parentId);
	return (
		<a className="muted forked-from" href={hrefOf({ page: "chat", sessionId: parentId })}>
			{/* A parent no longer listed (deleted, or outside the roots) is named by its id. */}
			forked from {parent === undefined ? parentId.slice(0, 8) : titleOf(parent)}
		</a>
	);
}
