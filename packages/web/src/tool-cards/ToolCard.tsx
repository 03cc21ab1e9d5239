import { type ReactNode, useContext } from "react";
import { SessionIdContext } from "../chat/session-actions.js";
import type { ToolItem, ToolState } from "../transcript/model.js";
import { ArgumentsBlock } from "./ArgumentsView.js";
import { useOpenCards } from "./open-cards.js";
import { targetOf } from "./tool-arguments.js";

const STATE_LABEL: Record<ToolState, string> = {
	pending: "pending",
	awaiting_approval: "awaiting approval",
	running: "running",
	ok: "ok",
	error: "error",
	denied: "denied",
	interrupted: "interrupted",
};

/** Who allowed a call nobody was asked about: the agent's policy, or a person's earlier "always". */
const DECIDED_LABEL = { policy: "allowed by policy", always: "allowed: always in this Session" } as const;

/** Output longer than this is folded behind "show all" (the card stays readable). */
const OUTPUT_PREVIEW = 1200;

/** A tool call: its name and state, its arguments (a diff for file changes), progress, output. */
export function ToolCard({ item, children }: { item: ToolItem; children?: ReactNode }) {
	// Open while it matters: running, failed, or with a subagent's work inside. A call awaiting
	// approval is shown in full in the composer's place, so its card stays folded here.
	const byState = item.state === "running" || item.state === "error" || item.children.length > 0;
	// Opened or folded by the person: kept as they left it, scrolled away and back (see useOpenCards).
	const key = `${useContext(SessionIdContext) ?? ""}:${item.key}`;
	const chosen = useOpenCards((s) => s.open[key]);
	const setChosen = useOpenCards((s) => s.set);
	const open = chosen ?? byState;
	const target = targetOf(item.arguments);
	return (
		<article className={`tool tool-${item.state}`} aria-label={`Tool ${item.name}: ${STATE_LABEL[item.state]}`}>
			<details
				open={open}
				onToggle={(event) => {
					if (event.currentTarget.open !== open) setChosen(key, event.currentTarget.open);
				}}
			>
				<summary title="Show or hide the arguments and the output">
					<span className="tool-toggle" aria-hidden="true" />
					<span className="tool-name">{item.name}</span>
					{target === undefined ? null : <code className="tool-target">{target}</code>}
					<span className={`tool-state state-${item.state}`}>{STATE_LABEL[item.state]}</span>
					{item.state !== "denied" && (item.decidedBy === "policy" || item.decidedBy === "always") ? (
						<span className="muted">{DECIDED_LABEL[item.decidedBy]}</span>
					) : null}
				</summary>
				<ArgumentsBlock name={item.name} json={item.arguments} />
				{item.state === "running" && item.progress.length > 0 ? (
					<pre className="progress" aria-live="polite">
						{item.progress.join("\n")}
					</pre>
				) : null}
				{item.output === undefined ? null : <ToolOutput output={item.output} />}
			</details>
			{children}
		</article>
	);
}

function ToolOutput({ output }: { output: string }) {
	if (output.length <= OUTPUT_PREVIEW) {
		return <pre className="output">{output}</pre>;
	}
	return (
		<details className="output-long">
			<summary>Output ({output.length.toLocaleString()} characters)</summary>
			<pre className="output">{output}</pre>
		</details>
	);
}
