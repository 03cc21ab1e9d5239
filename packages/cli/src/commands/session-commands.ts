import type { Conversation } from "../conversation/conversation.js";
import { showEarlier } from "../conversation/earlier.js";
import { type SessionChange, switchSession } from "../conversation/session-switch.js";
import type { Screen } from "../terminal/screen.js";
import { printSessionTable } from "./sessions-command.js";

export const SESSION_HELP = [
	"/sessions  list Sessions; /sessions <id> (or its start) goes on with that one",
	"/new       start a new Session",
	"/model <name>  go on with this Session on another model (a name of omniloop.yaml, or provider:model)",
];

/** `/sessions [id]`, `/new`, `/model <name>`: which Session, and on which model, the chat goes on. */
export async function runSessionCommand(
	name: string,
	argument: string,
	conversation: Conversation,
	screen: Screen,
): Promise<void> {
	if (name === "/sessions" && argument === "") {
		printSessionTable(conversation.opened.home, screen.info, conversation.openOptions.env.HOME ?? "");
		screen.info.line(screen.info.style.dim("/sessions <id> goes on with one of them"));
		return;
	}
	if (name === "/model" && argument === "") {
		screen.warn(`/model needs a model's name; this Session runs on ${conversation.opened.modelId}`);
		return;
	}
	const change: SessionChange =
		name === "/new"
			? { kind: "new" }
			: name === "/model"
				? { kind: "model", model: argument }
				: { kind: "resume", id: argument };
	const refused = await switchSession(conversation, change);
	if (refused !== undefined) {
		screen.warn(`${name} ${argument}: ${refused} (the chat stays in this Session)`);
		return;
	}
	const { session, resumed } = conversation.opened;
	if (change.kind === "resume") showEarlier(conversation);
	const model = change.kind === "model" ? change.model : conversation.opened.modelId;
	screen.notice(
		screen.err.style.dim(
			`session ${session.id} (${resumed ? "resumed" : "new"}) · model ${model} · the next Task runs here`,
		),
	);
}
