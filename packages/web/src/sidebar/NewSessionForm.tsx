import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type KeyboardEvent, useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { ErrorAlert } from "../app/ErrorAlert.js";
import { SESSIONS_KEY, useAgents } from "../app/queries.js";
import { navigate } from "../app/route.js";

/**
 * The first screen's composer: type and send, and a new Session starts with that message. Which
 * agent and which folder (within the server's workspace roots) are choices beside it, their
 * defaults shown; "Start the Session" opens one with nothing sent.
 */
export function NewSessionForm() {
	const agents = useAgents();
	const client = useQueryClient();
	const [text, setText] = useState("");
	const [agentId, setAgentId] = useState("");
	const [workspaceDir, setWorkspaceDir] = useState<string | undefined>(undefined);
	const firstRoot = agents.data?.workspaceRoots[0] ?? "";
	const folder = workspaceDir ?? firstRoot;
	const create = useMutation({
		mutationFn: async (message: string) => {
			const { id } = await api.createSession({
				...(agentId === "" ? {} : { agentId }),
				...(folder.trim() === "" || folder.trim() === firstRoot ? {} : { workspaceDir: folder.trim() }),
			});
			if (message !== "") await api.send(id, message);
			return id;
		},
		onSuccess: async (id) => {
			await client.invalidateQueries({ queryKey: SESSIONS_KEY });
			navigate({ page: "chat", sessionId: id });
		},
	});
	const start = (message: string) => {
		if (!create.isPending) create.mutate(message);
	};
	const submit = (event: FormEvent) => {
		event.preventDefault();
		if (text.trim() !== "") start(text.trim());
	};
	const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
		if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing && text.trim() !== "") {
			event.preventDefault();
			start(text.trim());
		}
	};
	const defaultAgent = agents.data?.agents.find((a) => a.id === "default_agent");
	return (
		<form className="new-session-form composer" onSubmit={submit} aria-label="New Session">
			<div className="composer-row">
				<textarea
					aria-label="Message"
					placeholder="Ask the agent… (a new Session starts with it)"
					value={text}
					rows={3}
					// biome-ignore lint/a11y/noAutofocus: the first screen is for typing; nothing comes before it.
					autoFocus
					onChange={(e) => setText(e.target.value)}
					onKeyDown={onKeyDown}
				/>
				<div className="composer-actions">
					<button className="button primary" type="submit" disabled={create.isPending || text.trim() === ""}>
						{create.isPending ? "Starting…" : "Send"}
					</button>
				</div>
			</div>
			<div className="new-session-choices">
				<label>
					Agent
					<select value={agentId} onChange={(e) => setAgentId(e.target.value)}>
						<option value="">
							default_agent{defaultAgent === undefined ? "" : ` — ${defaultAgent.model}`} (the default)
						</option>
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
					Folder
					<input
						value={folder}
						onChange={(e) => setWorkspaceDir(e.target.value)}
						placeholder="the server's first workspace root"
						spellCheck={false}
						list="workspace-roots"
					/>
					<datalist id="workspace-roots">
						{(agents.data?.workspaceRoots ?? []).map((root) => (
							<option key={root} value={root} />
						))}
					</datalist>
				</label>
				<button className="button" type="button" disabled={create.isPending} onClick={() => start("")}>
					Start the Session
				</button>
			</div>
			<ErrorAlert error={create.isError ? errorText(create.error) : undefined} />
		</form>
	);
}
