/** A request to the server with its token; `json`, when given, is the body (and sets its content type). */
export type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/** The API of the server at `origin`, as a client holding `token` calls it. */
export function bearerApi(origin: string, token: string): Api {
	return (path, init = {}) => {
		const { json, headers, ...rest } = init;
		return fetch(`${origin}${path}`, {
			...rest,
			headers: {
				authorization: `Bearer ${token}`,
				...(json === undefined ? {} : { "content-type": "application/json" }),
				...(headers as Record<string, string> | undefined),
			},
			...(json === undefined ? {} : { body: JSON.stringify(json) }),
		});
	};
}
