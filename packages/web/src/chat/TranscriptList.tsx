import { useQuery } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { VList, type VListHandle } from "virtua";
import { api } from "../api/endpoints.js";
import { ItemView } from "../messages/ItemView.js";
import type { Transcript } from "../transcript/model.js";

/** Within this many pixels of the end counts as "at the end": scrolling back there follows again. */
const STICK_PX = 80;

/**
 * The chat's items, virtualized (only what is on screen is in the DOM, so a 2,000-message Session
 * scrolls like a short one). It follows the end while the reader is there, and stays put when they
 * scrolled up to read (wheel, touch, keys or the scrollbar) until they scroll back to the end.
 *
 * Following sets the viewport's scrollTop itself, on each batch and each time the list's height
 * changes (an item measured, a token). Not virtua's `scrollToIndex`: its scroll stays pending
 * while items keep resizing, which during a stream is for ever, and it would win over the wheel.
 */
export function TranscriptList({ sessionId, transcript }: { sessionId: string; transcript: Transcript }) {
	const list = useRef<VListHandle>(null);
	const box = useRef<HTMLDivElement>(null);
	const following = useRef(true);
	const lastOffset = useRef(0);
	/** Where the browser last clamped the scroll as the list shrank under it (see `stick`). */
	const clampedTo = useRef<number | undefined>(undefined);
	/** Scrolled up, away from the end: a button takes the reader back (and to following). */
	const [away, setAway] = useState(false);
	const { order, items } = transcript;
	const last = order.at(-1);
	const lastItem = last === undefined ? undefined : items[last];
	const shown = order.length > 0;
	const viewport = () => box.current?.firstElementChild as HTMLElement | null | undefined;
	/**
	 * The list got shorter than the scroll offset for a moment (an item swapped for its final form
	 * and not yet measured, the viewport grown): the browser clamps the scroll to the new end. The
	 * scroll event that reports it may come when the list is long again, so it would read as the
	 * person scrolling up; the clamp's offset is noted so that it does not. Returns the end.
	 */
	const noteClamp = (el: HTMLElement, offset: number) => {
		const end = el.scrollHeight - el.clientHeight;
		if (end < offset) clampedTo.current = Math.max(0, end);
		return end;
	};
	const stick = () => {
		const el = viewport();
		if (!following.current || el == null) return;
		const end = noteClamp(el, lastOffset.current);
		if (el.scrollTop < end) el.scrollTop = end;
	};
	// biome-ignore lint/correctness/useExhaustiveDependencies: the last item growing (a token) must scroll too
	useLayoutEffect(stick, [order.length, lastItem]);
	// The list's height changes after the render too (virtua measures the items it shows).
	// biome-ignore lint/correctness/useExhaustiveDependencies: observed again when the list (re)appears
	useEffect(() => {
		const el = viewport();
		if (el == null) return;
		const observer = new ResizeObserver(stick);
		observer.observe(el);
		if (el.firstElementChild !== null) observer.observe(el.firstElementChild);
		return () => observer.disconnect();
	}, [shown]);
	// Until the stream brings the history, an empty list may be a Session with messages: it says
	// "no messages" only once the server said so (no flash of it on a reload).
	const empty = useQuery({
		queryKey: ["has-messages", sessionId],
		queryFn: () => api.hasMessages(sessionId),
		enabled: order.length === 0,
	});
	if (order.length === 0) {
		if (empty.data !== false) return <div className="transcript empty" aria-busy="true" />;
		return (
			<div className="transcript empty">
				<p className="muted">No messages yet. Ask the agent something below.</p>
			</div>
		);
	}
	const stopFollowing = () => {
		const el = viewport();
		if (el != null && el.scrollTop > 0) following.current = false;
	};
	return (
		<div ref={box} style={{ display: "contents" }}>
			<VList
				ref={list}
				className="transcript"
				data={order}
				role="log"
				aria-label="Messages"
				// Reading up is the person's intent at once, before the scroll event: a batch landing in
				// between must not pull them back to the end.
				onWheel={(event) => {
					if (event.deltaY < 0) stopFollowing();
				}}
				onKeyDown={(event) => {
					if (["PageUp", "ArrowUp", "Home"].includes(event.key)) stopFollowing();
				}}
				onScroll={(offset) => {
					const el = viewport();
					if (el == null) return;
					// The DOM's sizes, not virtua's: its viewport size is measured by a ResizeObserver, so
					// when the viewport grows (an approval card going away) the scroll the browser makes to
					// clamp it comes first, and with the old size a list still at its end read as scrolled up.
					const fromEnd = el.scrollHeight - offset - el.clientHeight;
					// Moved up (a touch, the scrollbar, a script), not by a clamp: it stops following. Only
					// the person scrolls while it does not follow: down to the end again, it follows again.
					// Within a pixel: the offset may be fractional (a zoomed page, a high-density screen).
					const clamped = clampedTo.current !== undefined && Math.abs(offset - clampedTo.current) < 1;
					clampedTo.current = undefined;
					if (following.current) noteClamp(el, offset);
					if (offset < lastOffset.current) {
						if (clamped) stick();
						else if (fromEnd >= STICK_PX) following.current = false;
					} else if (fromEnd < STICK_PX) following.current = true;
					lastOffset.current = offset;
					setAway(!following.current && fromEnd >= STICK_PX);
				}}
			>
				{(key) => (
					<div className="row" key={key}>
						<ItemView itemKey={key} items={items} />
					</div>
				)}
			</VList>
			{away ? (
				// A row of no height between the list and the composer: the button floats over the list's foot.
				<div className="jump-row">
					<button
						type="button"
						className="button small jump-latest"
						onClick={() => {
							following.current = true;
							setAway(false);
							stick();
						}}
					>
						{transcript.running ? "↓ New output below" : "↓ Jump to the latest"}
					</button>
				</div>
			) : null}
		</div>
	);
}
