import { ERROR_STATUS, type ErrorCode } from "@omniloop/client/wire";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type { ErrorCode };

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
