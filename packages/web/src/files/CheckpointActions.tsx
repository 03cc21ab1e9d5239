import { useContext, useState } from "react";
import { SessionIdContext } from "../chat/session-actions.js";
import { RestorePreview } from "./RestorePreview.js";

/**
 * A turn's checkpoint: "Undo changes" shows what restoring the files as they were before it would
 * change — on an older turn, every later turn's changes too — and restores only when confirmed.
 */
export function CheckpointActions({ checkpointId, skipped }: { checkpointId: string; skipped: readonly string[] }) {
	const sessionId = useContext(SessionIdContext);
	// Each opening reads the diff anew: the files may have changed since the last look.
	const [opened, setOpened] = useState<number | undefined>(undefined);
	return (
		<div className="notice notice-info checkpoint">
			<p>
				Files checkpointed before this turn's changes.
				{skipped.length === 0 ? null : ` Left out (too big): ${skipped.join(", ")}.`}{" "}
				<button
					type="button"
					className="button small ghost"
					aria-expanded={opened !== undefined}
					onClick={() => setOpened(opened === undefined ? Date.now() : undefined)}
				>
					{opened === undefined ? "Undo changes" : "Cancel"}
				</button>
			</p>
			{opened === undefined || sessionId === undefined ? null : (
				<section aria-label="Undo changes">
					<RestorePreview
						sessionId={sessionId}
						checkpointId={checkpointId}
						label="Restore these files"
						version={opened}
						// Restored: the preview no longer says what a restore would do (the notice says what it did).
						onDone={() => setOpened(undefined)}
					/>
				</section>
			)}
		</div>
	);
}
