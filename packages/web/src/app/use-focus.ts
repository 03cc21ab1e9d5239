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
 * again — React may commit a few frames later on a busy machine — unless the focus is somewhere
 * else by then (a next screen took it).
 */
export function focusBack(selector: string): void {
	focusSoon(selector, { unlessElsewhere: true });
}

/**
 * Focuses `selector`'s element at the next frame, trying again for up to `frames` frames until it
 * is shown and has the focus. `unlessElsewhere`: not when, once it is shown, the focus is on
 * another element.
 */
export function focusSoon(selector: string, { unlessElsewhere = false, frames = 10 } = {}): void {
	requestAnimationFrame(() => {
		const element = document.querySelector<HTMLElement>(selector);
		const active = document.activeElement;
		// Judged once the element is shown: until React commits, the focus may still sit in the closing choice.
		if (unlessElsewhere && element !== null && active !== null && active !== document.body && active !== element)
			return;
		element?.focus();
		if (document.activeElement !== element && frames > 1) focusSoon(selector, { unlessElsewhere, frames: frames - 1 });
	});
}
