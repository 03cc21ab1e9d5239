import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api/endpoints.js";
import { SESSIONS_KEY, useAgents } from "../app/queries.js";
import { navigate } from "../app/route.js";

/** A new Session: which agent, and which folder within the server's workspace roots. */
export function NewSessionForm() {
	const agents = useAgents();
	const client = useQueryClient();
	const [agentId, setAgentId] = useState("");
	const [workspaceDir, setWorkspaceDir] = useState("");
	const create = useMutation({
		mutationFn: () =>
			api.createSession({
				...(agentId === "" ? {} : { agentId }),
				...(workspaceDir.trim() === "" ? {} : { workspaceDir: workspaceDir.trim() }),
			}),
		onSuccess: async ({ id }) => {
			await client.invalidateQueries({ queryKey: SESSIONS_KEY });
			navigate({ page: "chat", sessionId: id });
		},
	});
	const submit = (event: FormEvent) => {
		event.preventDefault();
		create.mutate();
	};
	return (
		<form className="new-session-form" onSubmit={submit} aria-label="New Session">
			<h2>New Session</h2>
			<label>
				Agent
				<select value={agentId} onChange={(e) => setAgentId(e.target.value)}>
					<option value="">default_agent (the default)</option>
					{(agents.data?.agents ?? [])
						.filter((a) => a.id !== "default_agent")
						.map((a) => (
							<option key={a.id} value={a.id}>
								{a.id} — {a.model}
							</option>
						))}
				</select>
			</label>
			<label>
				Workspace folder
				<input
					value={workspaceDir}
					onChange={(e) => setWorkspaceDir(e.target.value)}
					placeholder="the server's first workspace root"
					spellCheck={false}
				/>
			</label>
			<button className="button primary" type="submit" disabled={create.isPending}>
				{create.isPending ? "Creating…" : "Start the Session"}
			</button>
			{create.isError ? (
				<p className="error-text" role="alert">
					{create.error.message}
				</p>
			) : null}
		</form>
	);
}
