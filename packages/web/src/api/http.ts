import { ApiError, OmniloopClient } from "@omniloop/client";
import { useToken } from "./token.js";

export { ApiError };

/**
 * The tab's client of the server (`@omniloop/client`), on the page's own origin, with the tab's
 * token as a Bearer header (api/token.ts). A 401 marks that token refused, and the tab asks for
 * another.
 */
export const client = new OmniloopClient({
	fetch: async (input, init) => {
		const sent = new Headers(init?.headers).get("authorization")?.replace(/^Bearer /, "");
		const response = await fetch(input, init);
		if (response.status === 401) useToken.getState().refuse(sent);
		return response;
	},
	token: () => useToken.getState().token,
});

/**
 * What a failed call says, for a person: the server's own words (the page is that server's, so
 * not "the server at … answered …: code:" as an ApiError's message says for a log).
 */
export function errorText(error: unknown): string {
	if (error instanceof ApiError) return error.reason;
	return error instanceof Error ? error.message : String(error);
}
