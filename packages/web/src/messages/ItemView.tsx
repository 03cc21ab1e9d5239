import { memo } from "react";
import { CheckpointActions } from "../files/CheckpointActions.js";
import { RestoredNotice } from "../files/RestoredNotice.js";
import { ToolCard } from "../tool-cards/ToolCard.js";
import type { Item } from "../transcript/model.js";
import { CopyButton } from "./CopyButton.js";
import { Markdown } from "./Markdown.js";
import { MessageActions } from "./MessageActions.js";
import { ReasoningView } from "./ReasoningView.js";
import { UserText } from "./UserText.js";

interface Props {
	itemKey: string;
	items: Record<string, Item>;
}

/** Unchanged when the item and, for a tool card, every item nested under it are the same objects. */
function sameTree(key: string, a: Record<string, Item>, b: Record<string, Item>): boolean {
	const item = a[key];
	if (item !== b[key]) return false;
	return item?.kind !== "tool" || item.children.every((child) => sameTree(child, a, b));
}

/** One chat item. Memoized on its own object: a token re-renders the item it lands in, nothing else. */
export const ItemView = memo(
	function ItemView({ itemKey, items }: Props) {
		const item = items[itemKey];
		if (item === undefined) return null;
		switch (item.kind) {
			case "user": {
				// A note of the engine's (a summary, a cut-off turn) or a subagent's Task is not a
				// message of yours: no rewind or fork to it.
				const label = item.note !== undefined ? noteLabel(item.note) : item.delegated ? "Subagent's task" : undefined;
				if (label !== undefined) {
					return (
						<div className="user-turn">
							<article className="msg user note" aria-label={label}>
								<span className="tag">{label.toLowerCase()}</span>
								<UserText text={item.text} />
							</article>
							<CopyButton text={item.text} what={label.toLowerCase()} />
						</div>
					);
				}
				return (
					<div className="user-turn">
						<article className={item.steer ? "msg user steer" : "msg user"} aria-label={item.steer ? "Steer" : "You"}>
							{item.steer ? <span className="tag">steer</span> : null}
							<UserText text={item.text} />
						</article>
						<CopyButton text={item.text} what="your message" />
						{item.steer ? null : <MessageActions seq={item.seq} text={item.text} />}
					</div>
				);
			}
			case "assistant":
				return (
					<>
						<article
							className={item.stopped ? "msg assistant stopped" : "msg assistant"}
							aria-label={item.stopped ? "Agent (stopped)" : "Agent"}
							aria-busy={item.streaming}
						>
							<Markdown text={item.text} streaming={item.streaming} />
							{item.stopped ? (
								<p className="stopped-label">Stopped — this partial answer is not kept in the history</p>
							) : null}
						</article>
						{item.streaming || item.stopped ? null : <CopyButton text={item.text} what="the answer" />}
					</>
				);
			case "reasoning":
				return <ReasoningView item={item} />;
			case "tool":
				return (
					<ToolCard item={item}>
						{item.children.length === 0 ? null : (
							<section className="subagent" aria-label={`Subagent of ${item.name}`}>
								{item.children.map((child) => (
									<ItemView key={child} itemKey={child} items={items} />
								))}
							</section>
						)}
					</ToolCard>
				);
			case "checkpoint":
				return <CheckpointActions checkpointId={item.checkpointId} skipped={item.skipped} />;
			case "restored":
				return <RestoredNotice item={item} />;
			case "notice":
				return (
					<p className={`notice notice-${item.tone}`} role={item.tone === "error" ? "alert" : undefined}>
						{item.text}
					</p>
				);
		}
	},
	(prev, next) => prev.itemKey === next.itemKey && sameTree(prev.itemKey, prev.items, next.items),
);

/** How a note is named in the chat, by its tag. */
function noteLabel(tag: string): string {
	if (tag === "context_summary") return "Summary";
	if (tag === "turn_aborted") return "Cut-off turn";
	if (tag === "task_restarted") return "Restart note";
	return "Note";
}
