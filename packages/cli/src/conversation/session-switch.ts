import { errorMessage } from "@omniloop/core/internal";
import { type OpenedSession, openSession } from "../session/open-session.js";
import { type Conversation, initialUsage } from "./conversation.js";
import { isUnused } from "./session-end.js";

/** Which Session the chat goes on with: another one by id (or its start), a new one, or this one on another model. */
export type SessionChange = { kind: "resume"; id: string } | { kind: "new" } | { kind: "model"; model: string };

/**
 * Puts the chat on another Session, between Tasks. The current one is closed first (a Trace has
 * one writer); when the next cannot be opened (an unknown id or model), the current one is
 * opened again and the reason returned, so the chat goes on where it was.
 */
export async function switchSession(conversation: Conversation, change: SessionChange): Promise<string | undefined> {
	const old = conversation.opened;
	const oldWasUsed = conversation.used;
	if (change.kind === "resume" && old.session.id.startsWith(change.id)) return "that is this Session already";
	await old.session.close();
	// A Session left without a message is removed, as on leaving.
	const empty = isUnused(old, oldWasUsed);
	const model = change.kind === "model" ? change.model : conversation.openOptions.model;
	const resume = change.kind === "resume" ? change.id : change.kind === "model" && !empty ? old.session.id : undefined;
	let next: OpenedSession;
	try {
		next = await openSession({ ...conversation.openOptions, model, resume }, conversation.screen);
	} catch (error) {
		const back = await openSession(
			{ ...conversation.openOptions, resume: empty ? undefined : old.session.id },
			conversation.screen,
		);
		adopt(conversation, back, empty ? false : oldWasUsed);
		if (empty) await old.discard();
		return errorMessage(error);
	}
	if (empty) await old.discard();
	adopt(conversation, next, false);
	if (change.kind === "model") conversation.openOptions.model = change.model;
	return undefined;
}

function adopt(conversation: Conversation, opened: OpenedSession, used: boolean): void {
	conversation.opened = opened;
	conversation.approver = conversation.approverFor(opened);
	conversation.usage = initialUsage(opened);
	conversation.used = used;
}
