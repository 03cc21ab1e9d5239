import type { Checkpoint } from "@omniloop/client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import type { Item } from "../transcript/model.js";
import { RestorePreview } from "./RestorePreview.js";

/**
 * The Session's checkpoints, newest first, read when opened: each with its turn, its time and —
 * opened — the files restoring it would change, and a button to restore it. A restore's own
 * checkpoint undoes that restore (docs/checkpoints.md).
 */
export function Checkpoints({
	sessionId,
	lastSeq,
	items,
}: {
	sessionId: string;
	lastSeq: number;
	items: Record<string, Item>;
}) {
	const [open, setOpen] = useState(false);
	const list = useQuery({
		queryKey: ["checkpoints", sessionId, lastSeq],
		queryFn: () => api.checkpoints(sessionId),
		enabled: open,
	});
	const all = list.data ?? [];
	return (
		<details className="checkpoints" onToggle={(event) => setOpen(event.currentTarget.open)}>
			<summary>Checkpoints{list.data === undefined ? "" : ` (${all.length})`}</summary>
			{list.isError ? <p className="error-text">{errorText(list.error)}</p> : null}
			{list.data?.length === 0 ? (
				<p className="muted">No checkpoint yet: one is made before a turn's first change to the files.</p>
			) : null}
			<ol reversed>
				{[...all].reverse().map((checkpoint) => (
					<CheckpointRow
						key={checkpoint.id}
						sessionId={sessionId}
						lastSeq={lastSeq}
						checkpoint={checkpoint}
						label={checkpointLabel(checkpoint, all, items)}
					/>
				))}
			</ol>
		</details>
	);
}

function CheckpointRow({
	sessionId,
	lastSeq,
	checkpoint,
	label,
}: {
	sessionId: string;
	lastSeq: number;
	checkpoint: Checkpoint;
	label: string;
}) {
	const [open, setOpen] = useState(false);
	const time = new Date(checkpoint.createdAt).toLocaleTimeString();
	return (
		<li aria-label={`Checkpoint ${checkpoint.n}`}>
			<details onToggle={(event) => setOpen(event.currentTarget.open)}>
				<summary>
					<span className="checkpoint-n">#{checkpoint.n}</span> {label} <time className="muted">{time}</time>
				</summary>
				{open ? (
					<RestorePreview
						sessionId={sessionId}
						checkpointId={checkpoint.id}
						label={checkpoint.reason === "restore" ? "Undo this restore" : "Restore"}
						version={lastSeq}
					/>
				) : null}
			</details>
		</li>
	);
}

/** "before the turn of “fix the tests”", or which restore a restore's checkpoint came before. */
function checkpointLabel(checkpoint: Checkpoint, all: readonly Checkpoint[], items: Record<string, Item>): string {
	if (checkpoint.reason === "restore") {
		const to = all.find((c) => c.id === checkpoint.restoredTo);
		return `before restoring ${to === undefined ? "a checkpoint" : `#${to.n}`}`;
	}
	let message: string | undefined;
	let best = 0;
	for (const item of Object.values(items)) {
		if (item.kind === "user" && !item.steer && item.seq <= checkpoint.seq && item.seq > best) {
			best = item.seq;
			message = item.text;
		}
	}
	if (message === undefined) return "before a turn's changes";
	const first = message.split("\n")[0] ?? "";
	return `before the changes of “${first.length > 60 ? `${first.slice(0, 60)}…` : first}”`;
}
