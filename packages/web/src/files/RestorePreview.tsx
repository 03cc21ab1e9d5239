import { useQuery } from "@tanstack/react-query";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { ActionButton, useAction } from "../chat/session-actions.js";
import { lineCounts } from "./unified-diff.js";

/**
 * What restoring a checkpoint would change, file by file (+/− lines, conflicts marked: kept unless
 * overwritten), and the buttons that do it: nothing is restored before the person has seen this
 * (docs/checkpoints.md). `version` refetches it when the Session has moved on.
 */
export function RestorePreview({
	sessionId,
	checkpointId,
	label,
	version,
	onDone,
}: {
	sessionId: string;
	checkpointId: string;
	label: string;
	version: number | string;
	/** After a restore done from here (the preview is out of date then). */
	onDone?: () => void;
}) {
	const diff = useQuery({
		queryKey: ["checkpoint-diff", sessionId, checkpointId, version],
		queryFn: () => api.checkpointDiff(sessionId, checkpointId),
	});
	const restore = useAction((id) => api.restore(id, checkpointId).then(onDone));
	const overwrite = useAction((id) => api.restore(id, checkpointId, true).then(onDone));
	const files = diff.data ?? [];
	const conflicts = files.filter((f) => f.conflict === true).length;
	return (
		<>
			{diff.isError ? <p className="error-text">{errorText(diff.error)}</p> : null}
			{diff.data?.length === 0 ? <p className="muted">The files are as they were then.</p> : null}
			{files.length === 0 ? null : (
				<>
					<ul className="checkpoint-files" aria-label="Files a restore changes">
						{files.map((file) => {
							const { added, removed } = lineCounts(file.diff);
							return (
								<li key={file.path}>
									<span className={`file-status ${file.status}`}>{file.status}</span> {file.path}{" "}
									<span className="count-add">+{added}</span> <span className="count-remove">−{removed}</span>
									{file.conflict === true ? (
										<span className="conflict"> changed outside the agent since: kept</span>
									) : null}
								</li>
							);
						})}
					</ul>
					<ActionButton label={label} action={restore} />
					{conflicts === 0 ? null : (
						<ActionButton label={`Restore, overwriting the ${conflicts} kept`} action={overwrite} />
					)}
				</>
			)}
		</>
	);
}
