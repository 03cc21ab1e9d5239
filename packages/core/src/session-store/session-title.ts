import { existsSync } from "node:fs";
import { SessionNotFoundError } from "../engine/session/errors.js";
import { sessionDir } from "../trace/trace-files.js";
import { saveTitle } from "./session-index.js";

/** The longest title a person may give a Session (after trimming). */
export const MAX_TITLE_LENGTH = 200;

/** A title that is not one: empty once trimmed, or longer than MAX_TITLE_LENGTH. */
export class TitleError extends Error {
	override readonly name = "TitleError";
}

/** `title` trimmed, when it is 1 to MAX_TITLE_LENGTH characters; a TitleError naming the problem otherwise. */
export function checkTitle(title: string): string {
	const trimmed = title.trim();
	if (trimmed === "") throw new TitleError("title: empty (give a Session 1 to 200 characters)");
	const length = [...trimmed].length;
	if (length > MAX_TITLE_LENGTH)
		throw new TitleError(`title: ${length} characters; at most ${MAX_TITLE_LENGTH} after trimming`);
	return trimmed;
}

/** A person's new title for a Session, checked (checkTitle) and kept beside its Trace; returns it as saved. */
export function renameSession(home: string, sessionId: string, title: string): string {
	const checked = checkTitle(title);
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) throw new SessionNotFoundError(sessionId, dir);
	saveTitle(home, sessionId, checked);
	return checked;
}
