import { Box, Static, Text } from "ink";
import { useSyncExternalStore } from "react";
import { type EditorState, nextBoundary } from "./input/editor.js";
import type { ApprovalBox, TuiSnapshot, TuiStore } from "./store.js";

/**
 * The screen: the finished conversation (printed once, scrolling up like any terminal output),
 * then the live area — the streaming tail, the waiting line, an approval box — and at the bottom
 * the input box, which nothing else ever writes into.
 */
export function App({ store }: { store: TuiStore }) {
	const state: TuiSnapshot = useSyncExternalStore(store.subscribe, store.get);
	return (
		<>
			<Static items={state.entries}>{(entry) => <Text key={entry.id}>{entry.text}</Text>}</Static>
			{state.closed ? null : (
				<Box flexDirection="column">
					{state.live.length > 0 ? <Text>{state.live.join("\n")}</Text> : null}
					{state.status === undefined ? null : <Text>{state.status}</Text>}
					{state.approval === undefined ? null : (
						<Approval box={state.approval} focused={state.approvalFocused} held={state.approvalHeld} />
					)}
					<Input prompt={state.prompt} editor={state.editor} dimmed={state.approvalFocused} />
					<Text dimColor>{state.hint}</Text>
				</Box>
			)}
		</>
	);
}

function Approval({ box, focused, held }: { box: ApprovalBox; focused: boolean; held: string | undefined }) {
	const shown = box.lines.slice(box.top, box.top + box.room);
	const scrolls = box.lines.length > box.room;
	return (
		<Box flexDirection="column" borderStyle="round" borderColor={focused ? "yellow" : "gray"} paddingX={1}>
			<Text bold>{box.title}</Text>
			{shown.length > 0 ? <Text>{shown.join("\n")}</Text> : null}
			{scrolls ? (
				<Text color="yellow">
					lines {box.top + 1}–{box.top + shown.length} of {box.lines.length} · ↑ ↓ PgUp PgDn to scroll
				</Text>
			) : null}
			{held !== undefined ? (
				<Text color="yellow">{held}… keep typing to write a steer · Enter answers now</Text>
			) : focused ? (
				<Answers />
			) : (
				<Text dimColor>your keys go to your message · Tab answers this approval</Text>
			)}
		</Box>
	);
}

function Answers() {
	return (
		<Text>
			<Text color="green" bold>
				y
			</Text>{" "}
			allow ·{" "}
			<Text color="red" bold>
				n
			</Text>{" "}
			deny ·{" "}
			<Text color="cyan" bold>
				a
			</Text>{" "}
			always allow this tool in this Session
		</Text>
	);
}

function Input({ prompt, editor, dimmed }: { prompt: string; editor: EditorState; dimmed: boolean }) {
	const before = editor.text.slice(0, editor.cursor);
	// The whole character under the cursor: an emoji is two UTF-16 units, or more.
	const atEnd = nextBoundary(editor.text, editor.cursor);
	const at = editor.cursor < editor.text.length ? editor.text.slice(editor.cursor, atEnd) : undefined;
	const after = editor.text.slice(atEnd);
	// The cursor is drawn as an inverted cell; a newline under it shows as a space before the break.
	const cursor = at === undefined || at === "\n" ? " " : at;
	return (
		<Box borderStyle="round" borderColor={dimmed ? "gray" : "cyan"} paddingX={1}>
			<Text bold color="cyan">
				{prompt}
			</Text>
			<Text>
				{before}
				{dimmed ? cursor : <Text inverse>{cursor}</Text>}
				{at === "\n" ? "\n" : ""}
				{after}
			</Text>
		</Box>
	);
}
