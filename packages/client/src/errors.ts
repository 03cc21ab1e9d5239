/** The server answered with an error: its status and the `{ error: { code, message } }` it sent. */
export class ApiError extends Error {
	override readonly name = "ApiError";
	constructor(
		readonly status: number,
		/** One of the protocol's codes (docs/protocol.md §2), or `http_error` when the body was not one. */
		readonly code: string,
		message: string,
		/** The route called: `POST /chat/sessions/:id/steer`. */
		readonly route: string,
	) {
		super(message);
	}
}

/** The server could not be reached at all (refused, unknown host, dropped before an answer). */
export class ConnectionError extends Error {
	override readonly name = "ConnectionError";
	constructor(
		readonly url: string,
		options: { cause: unknown },
	) {
		super(
			`cannot connect to ${url} (${options.cause instanceof Error ? options.cause.message : String(options.cause)})`,
			options,
		);
	}
}

/** What an error answer says, read leniently: a proxy's page or an empty body still gives the status. */
export async function apiError(response: Response, route: string): Promise<ApiError> {
	let body: { error?: { code?: unknown; message?: unknown } } = {};
	try {
		body = (await response.json()) as typeof body;
	} catch {
		// Not JSON: the status is all there is.
	}
	const code = typeof body.error?.code === "string" ? body.error.code : "http_error";
	const message =
		typeof body.error?.message === "string" ? body.error.message : `${response.status} ${response.statusText}`;
	return new ApiError(response.status, code, message, route);
}
