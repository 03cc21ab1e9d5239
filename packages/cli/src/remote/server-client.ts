import { readFrames } from "@omniloop/client";
import type { OmniMessage } from "@omniloop/core";

/** The server answered with an error (`{ error: { code, message } }`, docs/protocol.md §2), or could not be reached. */
export class ServerRequestError extends Error {
	override readonly name = "ServerRequestError";
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** A Runtime Server at `url`, reached with its bearer token: JSON calls and SSE streams. */
export class ServerClient {
	constructor(
		readonly url: string,
		readonly token: string,
	) {}

	async json<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
		const response = await this.send(method, path, body, signal);
		if (response.status === 204) return undefined as T;
		return (await response.json()) as T;
	}

	/** The OmniMessages of an SSE answer (a Task's, a compaction's), until the server ends it. */
	async *stream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<OmniMessage, void, undefined> {
		const response = await this.send("POST", path, body, signal);
		if (response.body === null) return;
		for await (const frame of readFrames<OmniMessage>(response.body)) yield frame.data;
	}

	private async send(method: Method, path: string, body: unknown, signal: AbortSignal | undefined): Promise<Response> {
		let response: Response;
		try {
			response = await fetch(new URL(path, this.url), {
				method,
				headers: {
					authorization: `Bearer ${this.token}`,
					...(body === undefined ? {} : { "content-type": "application/json" }),
				},
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
				...(signal === undefined ? {} : { signal }),
			});
		} catch (error) {
			if (signal?.aborted) throw error;
			throw new ServerRequestError(0, "unreachable", `cannot reach the server at ${this.url}: ${causeOf(error)}`);
		}
		if (response.ok) return response;
		const parsed = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
		const code = parsed.error?.code ?? String(response.status);
		const message = parsed.error?.message ?? response.statusText;
		throw new ServerRequestError(
			response.status,
			code,
			`the server at ${this.url} answered ${method} ${path}: ${code}: ${message}`,
		);
	}
}

function causeOf(error: unknown): string {
	const cause = error instanceof Error ? error.cause : undefined;
	if (cause instanceof Error) return cause.message;
	return error instanceof Error ? error.message : String(error);
}
