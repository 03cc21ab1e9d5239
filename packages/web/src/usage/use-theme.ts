import { useSyncExternalStore } from "react";

/**
 * The theme the page shows now (`<html data-theme>`, set by the theme toggle). What is drawn on a
 * canvas with the theme's colours (a chart's axes) is drawn again when it changes.
 */
export function useTheme(): string {
	return useSyncExternalStore(subscribe, () => document.documentElement.dataset.theme ?? "");
}

function subscribe(notify: () => void): () => void {
	const observer = new MutationObserver(notify);
	observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
	return () => observer.disconnect();
}
