import { errorMessage, writeChosenModel } from "@omniloop/core/internal";
import { parseModelFlag } from "../session/model-choice.js";
import { type OpenedSession, openSession } from "../session/open-session.js";
import { type Conversation, initialUsage } from "./conversation.js";
import { isUnused } from "./session-end.js";

/** Which Session the chat goes on with: another one by id (or its start), a new one, or this one on another model. */
export type SessionChange = { kind: "resume"; id: string } | { kind: "new" } | { kind: "model"; model: string };

/**
 * Puts the chat on another Session, between Tasks. Another Session (new, or another id) is opened
 * before the current one is closed: when it cannot be (an unknown id, an omniloop.yaml broken
 * meanwhile), the chat goes on where it was and the reason is returned. The same Session on another
 * model must be closed first (a Trace has one writer), then opened again; when that fails, it is
 * opened as it was.
 */
export async function switchSession(conversation: Conversation, change: SessionChange): Promise<string | undefined> {
	const old = conversation.opened;
	const oldWasUsed = conversation.used;
	if (change.kind === "resume" && old.session.id.startsWith(change.id)) return "that is this Session already";
	// A Session left without a message is removed, as on leaving.
	const empty = isUnused(old, oldWasUsed);
	if (change.kind !== "model" || empty) {
		const model = change.kind === "model" ? change.model : conversation.openOptions.model;
		const resume = change.kind === "resume" ? change.id : undefined;
		let next: OpenedSession;
		try {
			next = await openSession({ ...conversation.openOptions, model, resume }, conversation.screen);
		} catch (error) {
			return errorMessage(error);
		}
		await old.session.close();
		if (empty) await old.discard();
		adopt(conversation, next, false);
		if (change.kind === "model") conversation.openOptions.model = change.model;
		return undefined;
	}
	await old.session.close();
	try {
		adopt(
			conversation,
			await openSession(
				{ ...conversation.openOptions, model: change.model, resume: old.session.id },
				conversation.screen,
			),
			false,
		);
	} catch (error) {
		adopt(
			conversation,
			await openSession({ ...conversation.openOptions, resume: old.session.id }, conversation.screen),
			oldWasUsed,
		);
		return errorMessage(error);
	}
	conversation.openOptions.model = change.model;
	// A model of omniloop.yaml, kept beside the Trace: a later --resume goes on with it (as the server does).
	const opened = conversation.opened;
	if (parseModelFlag(change.model).kind === "named")
		writeChosenModel(opened.home, opened.session.id, { name: change.model, model: opened.modelId });
	return undefined;
}

function adopt(conversation: Conversation, opened: OpenedSession, used: boolean): void {
	conversation.opened = opened;
	conversation.approver = conversation.approverFor(opened);
	conversation.usage = initialUsage(opened);
	conversation.used = used;
}
