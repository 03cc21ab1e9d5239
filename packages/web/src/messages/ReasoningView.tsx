import type { ReasoningItem } from "../transcript/model.js";

/** The model's reasoning, folded: a line to open, the text inside. */
export function ReasoningView({ item }: { item: ReasoningItem }) {
	return (
		<details className="reasoning">
			<summary>
				{item.streaming ? "Thinking…" : item.stopped ? "Reasoning (stopped, not kept in the history)" : "Reasoning"}
			</summary>
			<p className="reasoning-text">{item.text}</p>
		</details>
	);
}
