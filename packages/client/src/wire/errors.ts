import { z } from "zod";

/** The error codes of the API (docs/protocol.md §2), each with its HTTP status. */
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
	/** The model a route asked (a title) failed: its provider refused or could not be reached. Not a bug of the server's. */
	model_failed: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Every error answer: `{ error: { code, message } }`; `message` names the field or thing. */
export const errorBody = z.object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }) });
export type ErrorBody = z.infer<typeof errorBody>;
