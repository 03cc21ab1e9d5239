import { type KeyboardEvent, type RefObject, useEffect, useRef } from "react";

/**
 * A choice that just opened (a confirmation, a form) takes the keyboard: the element the returned
 * ref is put on is focused as it mounts, so the person's next key acts on it, not on <body>.
 * `when` false: not this time (a choice shown again as its message scrolls back into view).
 */
export function useFocusOnMount<T extends HTMLElement>(when = true): RefObject<T | null> {
	const ref = useRef<T>(null);
	// biome-ignore lint/correctness/useExhaustiveDependencies: as it mounts only.
	useEffect(() => {
		if (when) ref.current?.focus();
	}, []);
	return ref;
}

/** A keydown handler that calls `cancel` on Esc: a choice that opened closes without acting. */
export function escapeCancels(cancel: () => void): (event: KeyboardEvent) => void {
	return (event) => {
		if (event.key !== "Escape") return;
		event.preventDefault();
		event.stopPropagation();
		cancel();
	};
}

/**
 * Where the focus goes back to when a choice closes: the button that opened it, once it is shown
 * again — React may commit a few frames later on a busy machine, so up to `frames` frames are
 * waited for it — unless the focus is somewhere else by then (a next screen took it).
 */
export function focusBack(selector: string, frames = 10): void {
	requestAnimationFrame(() => {
		const target = document.querySelector<HTMLElement>(selector);
		if (target === null) {
			if (frames > 1) focusBack(selector, frames - 1);
			return;
		}
		const active = document.activeElement;
		if (active === null || active === document.body) target.focus();
	});
}

/** Focuses `selector`'s element at the next frame, trying again for up to `frames` frames until it has the focus. */
export function focusSoon(selector: string, frames = 10): void {
	requestAnimationFrame(() => {
		const element = document.querySelector<HTMLElement>(selector);
		element?.focus();
		if ((element === null || document.activeElement !== element) && frames > 1) focusSoon(selector, frames - 1);
	});
}
