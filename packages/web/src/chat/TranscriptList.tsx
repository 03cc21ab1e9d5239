import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { VList, type VListHandle } from "virtua";
import { api } from "../api/endpoints.js";
import type { Transcript } from "../transcript/model.js";
import { ItemView } from "./ItemView.js";

/** Within this many pixels of the end counts as "at the end": new content keeps it in view. */
const STICK_PX = 80;

/**
 * The chat's items, virtualized (only what is on screen is in the DOM, so a 2,000-message Session
 * scrolls like a short one). It follows the end while the reader is there, and stays put when they
 * scrolled up to read.
 */
export function TranscriptList({ sessionId, transcript }: { sessionId: string; transcript: Transcript }) {
	const list = useRef<VListHandle>(null);
	const atEnd = useRef(true);
	const { order, items } = transcript;
	const last = order.at(-1);
	const lastItem = last === undefined ? undefined : items[last];
	// biome-ignore lint/correctness/useExhaustiveDependencies: the last item growing (a token) must scroll too
	useEffect(() => {
		if (!atEnd.current || order.length === 0) return;
		list.current?.scrollToIndex(order.length - 1, { align: "end" });
	}, [order.length, lastItem]);
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
	return (
		<VList
			ref={list}
			className="transcript"
			data={order}
			role="log"
			aria-label="Messages"
			// Reading up is the person's intent at once, before the scroll event: a batch landing in
			// between must not pull them back to the end.
			onWheel={(event) => {
				if (event.deltaY < 0) atEnd.current = false;
			}}
			onKeyDown={(event) => {
				if (["PageUp", "ArrowUp", "Home"].includes(event.key)) atEnd.current = false;
			}}
			onScroll={(offset) => {
				const handle = list.current;
				if (handle !== null) atEnd.current = handle.scrollSize - offset - handle.viewportSize < STICK_PX;
			}}
		>
			{(key) => (
				<div className="row" key={key}>
					<ItemView itemKey={key} items={items} />
				</div>
			)}
		</VList>
	);
}
