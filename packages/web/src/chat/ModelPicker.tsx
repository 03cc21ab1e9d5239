import type { SessionSummary } from "@omniloop/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { SESSIONS_KEY, useAgents } from "../app/queries.js";

/**
 * The Session's model, and a picker of the models the server lists (`GET /agents`'s `models`): the
 * CLI's `/model <name>`. The choice holds from the next Task, with the conversation so far; it is
 * not offered while a Task runs (the server refuses it then). Without models to choose from (the
 * demo), just the model's name.
 */
export function ModelPicker({ sessionId, session }: { sessionId: string; session: SessionSummary }) {
	const client = useQueryClient();
	const models = useAgents().data?.models ?? [];
	const choose = useMutation({
		mutationFn: (name: string) => api.setModel(sessionId, name),
		onSuccess: () => client.invalidateQueries({ queryKey: SESSIONS_KEY }),
	});
	if (models.length === 0) return <span className="muted">{session.model}</span>;
	// Several names may stand for one model id: the first is shown as chosen.
	const current = models.find((m) => m.model === session.model)?.name ?? "";
	return (
		<span className="model-picker">
			<select
				aria-label="Model"
				title={session.status === "idle" ? "The model of this Session's next Task" : "Switch models once the Task ends"}
				value={current}
				disabled={choose.isPending || session.status !== "idle"}
				onChange={(event) => {
					if (event.target.value !== "") choose.mutate(event.target.value);
				}}
			>
				{current === "" ? <option value="">{session.model}</option> : null}
				{models.map((m) => (
					<option key={m.name} value={m.name}>
						{m.name} ({m.model})
					</option>
				))}
			</select>
			{choose.isError ? (
				<span className="error-text" role="alert">
					{" "}
					Could not switch models: {errorText(choose.error)}
				</span>
			) : null}
		</span>
	);
}
