import { authorization, useToken } from "./token.js";

/** A failed call to the server: its HTTP status and the `{ error: { code, message } }` it answered. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
		this.name = "ApiError";
	}
}

interface ErrorBody {
	error?: { code?: string; message?: string };
}

async function failure(response: Response): Promise<ApiError> {
	let body: ErrorBody = {};
	try {
		body = (await response.json()) as ErrorBody;
	} catch {
		// Not JSON (a proxy's page, a dropped body): the status is all there is.
	}
	return new ApiError(
		response.status,
		body.error?.code ?? "http_error",
		body.error?.message ?? `${response.status} ${response.statusText}`,
	);
}

/**
 * A call to the server, with the tab's token as a Bearer header (api/token.ts). A 401 marks that
 * token refused, and the tab asks for another.
 */
export async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
	const { json, headers, ...rest } = init;
	const { token } = useToken.getState();
	const response = await fetch(path, {
		credentials: "omit",
		...rest,
		headers: {
			...authorization(token),
			...(json === undefined ? {} : { "content-type": "application/json" }),
			...headers,
		},
		...(json === undefined ? {} : { body: JSON.stringify(json) }),
	});
	if (response.status === 401) useToken.getState().refuse(token);
	if (!response.ok) throw await failure(response);
	return response;
}

export async function callJson<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
	return (await (await call(path, init)).json()) as T;
}

/** What a failed call says, for a person: the server's message (not "ApiError: …"). */
export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
