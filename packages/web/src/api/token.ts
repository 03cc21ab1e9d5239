import { create } from "zustand";

/**
 * The server's token, in this browser: never a cookie (cookies ignore ports, so every local server
 * would get it). `omniloop serve` prints `/#token=…`; the app takes it from the fragment (which no
 * request or Referer carries), keeps it in `localStorage` (scoped to this scheme, host and port)
 * and sends it as `Authorization: Bearer` on every call and on its event stream (README, "Security").
 */
const STORAGE_KEY = "omniloop.token";

interface TokenState {
	/** The token calls carry; undefined until one is given. */
	token: string | undefined;
	/** The server answered 401 to this token: the tab asks for another. */
	refused: boolean;
	use(token: string): void;
	/** A 401 to a call made with `token` (an answer to an older token changes nothing). */
	refuse(token: string | undefined): void;
}

function stored(): string | undefined {
	return window.localStorage.getItem(STORAGE_KEY) ?? undefined;
}

export const useToken = create<TokenState>((set, get) => ({
	token: undefined,
	refused: false,
	use: (token) => {
		window.localStorage.setItem(STORAGE_KEY, token);
		set({ token, refused: false });
	},
	refuse: (token) => {
		if (token === get().token) set({ refused: true });
	},
}));

/**
 * What a person pasted: the token, or the whole URL `omniloop serve` printed (`…/#token=…`, or an
 * old `…/?token=…`). Undefined when it holds nothing usable.
 */
export function tokenFrom(text: string): string | undefined {
	const trimmed = text.trim();
	const inUrl = /[#?&]token=([^&#\s]*)/.exec(trimmed);
	const token = inUrl === null ? trimmed : decodeURIComponent(inUrl[1] ?? "");
	return token === "" || /\s/.test(token) ? undefined : token;
}

/**
 * At start, before the router reads the hash: a `#token=…` becomes the tab's token and leaves the
 * address bar (and the history), else the one this browser kept is used. Another tab that is given
 * a new token passes it on through the `storage` event.
 */
export function takeToken(): void {
	const fromUrl = window.location.hash.startsWith("#token=") ? tokenFrom(window.location.hash) : undefined;
	if (fromUrl !== undefined) {
		useToken.getState().use(fromUrl);
		window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
	} else {
		const kept = stored();
		if (kept !== undefined) useToken.setState({ token: kept });
	}
	window.addEventListener("storage", (event) => {
		if (event.key === STORAGE_KEY && event.newValue !== null)
			useToken.setState({ token: event.newValue, refused: false });
	});
}

/** The header every call and stream carries (none while the tab has no token: the server says 401). */
export function authorization(token: string | undefined): Record<string, string> {
	return token === undefined ? {} : { authorization: `Bearer ${token}` };
}
