import type { WorkflowView } from "@omniloop/client";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { ErrorAlert } from "../app/ErrorAlert.js";
import { WORKFLOWS_KEY } from "../app/queries.js";
import { ApprovalCard } from "./ApprovalCard.js";
import { Composer } from "./Composer.js";

const STATUS_TEXT: Record<string, string> = {
	running: "running",
	waiting_approval: "waiting for your approval",
	ready: "every approval decided: Resume to go on",
};

/**
 * The composer's place in a workflow's Session (docs/protocol.md §5.7): the workflow drives it, so
 * no chat message goes in while it lasts. Its pending approvals come from the workflow (durable:
 * a restart keeps them), each decision goes to the workflow, and Resume and Cancel move it on.
 */
export function WorkflowSlot({ sessionId, workflow }: { sessionId: string; workflow: WorkflowView }) {
	const client = useQueryClient();
	const [error, setError] = useState<string | undefined>(undefined);
	const [sending, setSending] = useState(false);
	const refresh = () => void client.invalidateQueries({ queryKey: WORKFLOWS_KEY });
	const act = async (action: (id: string) => Promise<unknown>) => {
		setSending(true);
		setError(undefined);
		try {
			await action(workflow.id);
		} catch (e) {
			setError(errorText(e));
		} finally {
			setSending(false);
			refresh();
		}
	};
	const first = workflow.pendingApprovals[0];
	const label = workflow.name === undefined ? `Workflow ${workflow.id}` : `Workflow ${workflow.name}`;
	return (
		<div className="workflow-slot">
			<section className="workflow-bar" aria-label="Workflow">
				<p>
					<strong>{label}</strong> <span className="badge">{STATUS_TEXT[workflow.status] ?? workflow.status}</span>
				</p>
				<div className="workflow-actions">
					{workflow.status === "ready" ? (
						<button
							type="button"
							className="button primary"
							disabled={sending}
							onClick={() => void act(api.resumeWorkflow)}
						>
							Resume
						</button>
					) : null}
					<button
						type="button"
						className="button danger"
						disabled={sending}
						onClick={() => void act(api.cancelWorkflow)}
					>
						Cancel the workflow
					</button>
				</div>
				<ErrorAlert error={error} />
			</section>
			{first === undefined ? (
				<div className="composer-slot">
					<Composer
						sessionId={sessionId}
						working={false}
						locked={false}
						closed="This Session runs a workflow: it takes no chat message until the workflow ends."
					/>
				</div>
			) : (
				<ApprovalCard
					key={first.correlationId}
					sessionId={sessionId}
					approval={first}
					more={workflow.pendingApprovals.length - 1}
					workflowId={workflow.id}
					decided={refresh}
				/>
			)}
		</div>
	);
}
