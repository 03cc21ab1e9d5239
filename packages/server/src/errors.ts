import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The error codes of the API (DESIGN §9), each with its HTTP status. */
export const ERROR_STATUS = {
	invalid_body: 400,
	unauthorized: 401,
	forbidden: 403,
	not_found: 404,
	session_busy: 409,
	already_answered: 409,
	invalid_state: 409,
	payload_too_large: 413,
	unsupported_media_type: 415,
	internal: 500,
	/** The SQLite store stayed locked by another process for longer than `server.storeBusyMs`. */
	store_busy: 503,
	/** A Session's Trace whose header line cannot be read (a damaged line elsewhere is only left out). */
	trace_damaged: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An API error: becomes `{ error: { code, message } }` with its status. `message` names the field or thing. */
export class HttpError extends Error {
	override readonly name = "HttpError";
	constructor(
		readonly code: ErrorCode,
		message: string,
		/** `cause`: the typed error this one reports, for code that must tell kinds apart. */
		options?: { cause: Error },
	) {
		super(message, options);
	}

	get status(): ContentfulStatusCode {
		return ERROR_STATUS[this.code];
	}

	toJSON(): { error: { code: ErrorCode; message: string } } {
		return { error: { code: this.code, message: this.message } };
	}
}

export function notFound(what: string): HttpError {
	return new HttpError("not_found", `${what} not found`);
}
