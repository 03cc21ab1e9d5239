import { useMemo } from "react";
import { viewArguments } from "./tool-arguments.js";

/** A call's full arguments: nothing cut, so a person sees exactly what will run. */
export function ArgumentsBlock({ name, json }: { name: string; json: string }) {
	// A parse and a line diff: not again for every progress line that re-renders the card.
	const view = useMemo(() => viewArguments(name, json), [name, json]);
	switch (view.kind) {
		case "diff":
			return (
				<figure className="diff">
					<figcaption>
						<code>{view.path}</code>
						{view.note === undefined ? null : <span className="muted"> — {view.note}</span>}
					</figcaption>
					<pre>
						{view.lines.map((line, i) => (
							<span
								// Lines have no identity of their own; their position is it.
								// biome-ignore lint/suspicious/noArrayIndexKey: a diff line is its position
								key={i}
								className={`diff-${line.kind}`}
							>
								{line.kind === "add" ? "+ " : line.kind === "remove" ? "- " : "  "}
								{line.text}
								{"\n"}
							</span>
						))}
					</pre>
				</figure>
			);
		case "command":
			return (
				<pre className="command">
					<code>{view.command}</code>
				</pre>
			);
		case "json":
			return (
				<pre className="args">
					<code>{view.text}</code>
				</pre>
			);
	}
}
