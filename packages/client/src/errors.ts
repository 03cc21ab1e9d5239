/**
 * The server answered with an error: its status and the `{ error: { code, message } }` it sent.
 * `message` says it whole, for a log or a command line ("the server at http://127.0.0.1:4317
 * answered POST /chat/sessions/abc/steer: invalid_body: …"); `reason` is the server's own words,
 * for a page that already says which server and what was asked.
 */
export class ApiError extends Error {
	override readonly name = "ApiError";
	constructor(
		readonly status: number,
		/** One of the protocol's codes (docs/protocol.md §2), or `http_error` when the body was not one. */
		readonly code: string,
		readonly reason: string,
		/** The route called: `POST /chat/sessions/:id/steer`. */
		readonly route: string,
		/** What was asked: the server's origin and the path, without userinfo or query (they may hold secrets). */
		readonly url: string,
	) {
		super(`${theServerAt(url)} answered ${route.split(" ")[0]} ${partsOf(url).path}: ${code}: ${reason}`);
	}
}

/** The server could not be reached at all (refused, unknown host, dropped before an answer). */
export class ConnectionError extends Error {
	override readonly name = "ConnectionError";
	constructor(
		/** Where it was asked: the server's origin and the path, without userinfo or query. */
		readonly url: string,
		options: { cause: unknown },
	) {
		super(`cannot reach ${theServerAt(url)}: ${causeOf(options.cause)}`, options);
	}
}

/** What an error answer says, read leniently: a proxy's page or an empty body still gives the status. */
export async function apiError(response: Response, route: string, url: string): Promise<ApiError> {
	let body: { error?: { code?: unknown; message?: unknown } } = {};
	try {
		body = (await response.json()) as typeof body;
	} catch {
		// Not JSON: the status is all there is.
	}
	const code = typeof body.error?.code === "string" ? body.error.code : "http_error";
	const message =
		typeof body.error?.message === "string" ? body.error.message : `${response.status} ${response.statusText}`;
	return new ApiError(response.status, code, message, route, url);
}

/**
 * A request's URL as it may be shown: the origin and path, no userinfo, query or fragment (a
 * token or a search may stand there). A relative one (a page calling its own origin) stays a path.
 */
export function shownUrl(url: string): string {
	const { origin, path } = partsOf(url);
	return `${origin ?? ""}${path}`;
}

function partsOf(url: string): { origin: string | undefined; path: string } {
	const absolute = /^[a-z][a-z\d+.-]*:/i.test(url);
	const parsed = new URL(url, "http://relative.invalid");
	return { origin: absolute ? `${parsed.protocol}//${parsed.host}` : undefined, path: parsed.pathname };
}

function theServerAt(url: string): string {
	const { origin } = partsOf(url);
	return origin === undefined ? "the server" : `the server at ${origin}`;
}

/** fetch's "fetch failed" says nothing: the system's reason (ECONNREFUSED 127.0.0.1:9) is its cause. */
function causeOf(error: unknown): string {
	const inner = error instanceof Error ? error.cause : undefined;
	if (inner instanceof Error && inner.message !== "") return inner.message;
	return error instanceof Error ? error.message : String(error);
}
