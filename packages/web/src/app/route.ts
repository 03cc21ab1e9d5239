import { useSyncExternalStore } from "react";

/** Where the tab is: the hash, so a link or a reload opens the same screen without server routes. */
export type Route = { page: "home" } | { page: "chat"; sessionId: string } | { page: "usage" };

export function parseRoute(hash: string): Route {
	const path = hash.replace(/^#/, "");
	const chat = /^\/s\/([^/]+)$/.exec(path);
	if (chat?.[1] !== undefined) return { page: "chat", sessionId: decodeURIComponent(chat[1]) };
	if (path === "/usage") return { page: "usage" };
	return { page: "home" };
}

export const hrefOf = (route: Route): string =>
	route.page === "chat" ? `#/s/${encodeURIComponent(route.sessionId)}` : route.page === "usage" ? "#/usage" : "#/";

export function navigate(route: Route): void {
	window.location.hash = hrefOf(route);
}

const subscribe = (notify: () => void) => {
	window.addEventListener("hashchange", notify);
	return () => window.removeEventListener("hashchange", notify);
};

export function useRoute(): Route {
	const hash = useSyncExternalStore(subscribe, () => window.location.hash);
	return parseRoute(hash);
}
