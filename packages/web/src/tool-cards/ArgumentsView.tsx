import { useMemo } from "react";
import { ShownText } from "../messages/ShownText.js";
import { viewArguments } from "./tool-arguments.js";

/** More lines than this may not fit the block: the caption says to scroll. */
const SCROLL_HINT_LINES = 12;

const lineCount = (text: string): number => text.split("\n").length;

const linesLabel = (count: number): string => (count === 1 ? "1 line" : `${count.toLocaleString()} lines`);

/**
 * Text shown whole, line by line, with its line count: a command padded with blank lines keeps
 * what follows them reachable (the block scrolls) and the count says there is more.
 */
function WholeText({ className, caption, text }: { className: string; caption: string; text: string }) {
	const lines = text.split("\n");
	return (
		<figure className="whole-text">
			<figcaption className="muted small">
				{caption} — {linesLabel(lines.length)}
				{lines.length > SCROLL_HINT_LINES ? ": scroll to see them all" : null}
			</figcaption>
			<pre className={className}>
				<code>
					{lines.map((line, i) => (
						// biome-ignore lint/suspicious/noArrayIndexKey: a line is its position
						<span key={i} className="line">
							<ShownText text={line} />
							{i < lines.length - 1 ? "\n" : null}
						</span>
					))}
				</code>
			</pre>
		</figure>
	);
}

/** A call's full arguments: nothing cut, nothing invisible, so a person sees exactly what will run. */
export function ArgumentsBlock({ name, json }: { name: string; json: string }) {
	// A parse and a line diff: not again for every progress line that re-renders the card.
	const view = useMemo(() => viewArguments(name, json), [name, json]);
	switch (view.kind) {
		case "diff":
			return (
				<figure className="diff">
					<figcaption>
						<code>
							<ShownText text={view.path} />
						</code>
						{view.note === undefined ? null : <span className="muted"> — {view.note}</span>}
						<span className="muted"> — {linesLabel(view.lines.length)}</span>
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
								<ShownText text={line.text} />
								{"\n"}
							</span>
						))}
					</pre>
				</figure>
			);
		case "command":
			return <WholeText className="command" caption="command" text={view.command} />;
		case "json":
			return lineCount(view.text) === 1 ? (
				<pre className="args">
					<code>
						<ShownText text={view.text} />
					</code>
				</pre>
			) : (
				<WholeText className="args" caption="arguments" text={view.text} />
			);
	}
}
