import { api } from "../api/endpoints.js";
import { ActionButton, useAction } from "../chat/session-actions.js";
import type { RestoredItem } from "../transcript/model.js";

/**
 * A restore done (an undo, a restore, a rewind's): what it restored and what it kept because it
 * was changed outside the agent since; "Undo this restore" goes back to the checkpoint made just
 * before it, "Overwrite them too" restores the kept files after all (docs/checkpoints.md).
 */
export function RestoredNotice({ item }: { item: RestoredItem }) {
	const undo = useAction((id) => api.restore(id, item.before));
	const overwrite = useAction((id) => api.restore(id, item.checkpointId, true));
	const conflicts = item.conflicts.length > 0;
	return (
		<section className={`notice notice-${conflicts ? "warn" : "info"} restored`} aria-label="Restore">
			<span>
				Restored {item.restored.length} file(s).
				{conflicts ? ` Kept, changed outside the agent: ${item.conflicts.join(", ")}.` : null}
			</span>{" "}
			<ActionButton label="Undo this restore" action={undo} />
			{conflicts ? <ActionButton label="Overwrite them too" action={overwrite} /> : null}
		</section>
	);
}
