import { useQueryClient } from "@tanstack/react-query";
import { useContext, useId, useState } from "react";
import { api } from "../api/endpoints.js";
import { SESSIONS_KEY, useAgents, useSessions } from "../app/queries.js";
import { navigate } from "../app/route.js";
import { escapeCancels, focusBack, useFocusOnMount } from "../app/use-focus.js";
import { ActionButton, SessionIdContext, useAction } from "../chat/session-actions.js";
import { choiceKey, type MessageChoice, useMessageChoices } from "./message-choices.js";

/**
 * "Rewind to here" (the conversation only, or the files too) and "Fork from here" (in the same
 * folder, or a new one holding the files as they were) on a person's message (docs/checkpoints.md).
 */
export function MessageActions({ seq, text }: { seq: number; text: string }) {
	const key = choiceKey(useContext(SessionIdContext), seq);
	const open = useMessageChoices((s) => s.open[key]);
	const setChoice = useMessageChoices((s) => s.set);
	const setOpen = (choice: MessageChoice | undefined) => setChoice(key, choice);
	// Opened by a click here (not shown again as the message scrolled back into view): it takes the focus.
	const [clicked, setClicked] = useState(false);
	const openBy = (choice: MessageChoice) => {
		setClicked(true);
		setOpen(choice);
	};
	// Closed (Cancel, Esc, or done): the focus goes back to the button that opened it, unless the
	// screen moved on (a fork opens its own Session, which takes the focus).
	const close = (was: MessageChoice) => {
		setOpen(undefined);
		focusBack(`.msg-actions[data-seq="${seq}"] .open-${was}`);
	};
	// Every message has these buttons: a screen reader hears which message each is about (its
	// description), while their names stay the same for a person who reads the screen.
	const about = useId();
	return (
		<div className="msg-actions" data-seq={seq}>
			<span id={about} hidden>
				{`Your message: ${preview(text)}`}
			</span>
			{open === undefined
				? CHOICES.map(([choice, label]) => (
						<button
							key={choice}
							type="button"
							className={`button small ghost open-${choice}`}
							aria-describedby={about}
							onClick={() => openBy(choice)}
						>
							{label}
						</button>
					))
				: null}
			{open === "rewind" ? <RewindChoice seq={seq} focus={clicked} close={() => close("rewind")} /> : null}
			{open === "fork" ? <ForkForm seq={seq} focus={clicked} close={() => close("fork")} /> : null}
		</div>
	);
}

/** The choices a person's message offers, each with its button's name. */
const CHOICES: readonly (readonly [MessageChoice, string])[] = [
	["rewind", "Rewind to here"],
	["fork", "Fork from here"],
];

function RewindChoice({ seq, focus, close }: { seq: number; focus: boolean; close: () => void }) {
	const conversation = useAction((id) => api.rewind(id, seq, false));
	const withFiles = useAction((id) => api.rewind(id, seq, true));
	const first = useFocusOnMount<HTMLFieldSetElement>(focus);
	return (
		<fieldset
			ref={first}
			tabIndex={-1}
			className="msg-choice"
			aria-label="Rewind to before this message"
			onKeyDown={escapeCancels(close)}
		>
			<legend>Rewind to before this message:</legend>
			<ActionButton label="Conversation only" action={conversation} />
			<ActionButton label="Conversation and files" action={withFiles} />
			<button type="button" className="button small ghost" onClick={close}>
				Cancel
			</button>
		</fieldset>
	);
}

function ForkForm({ seq, focus, close }: { seq: number; focus: boolean; close: () => void }) {
	const client = useQueryClient();
	const sessionId = useContext(SessionIdContext);
	const workspace = useSessions().data?.find((s) => s.id === sessionId)?.workspaceDir;
	const roots = useAgents().data?.workspaceRoots ?? [];
	const suggested = besideInRoots(workspace, seq, roots);
	const [newFolder, setNewFolder] = useState(false);
	const where = useId();
	const [folder, setFolder] = useState<string | undefined>(undefined);
	const fork = useAction(async (id) => {
		const dir = newFolder ? (folder ?? suggested).trim() : undefined;
		const forked = await api.fork(id, seq, dir);
		await client.invalidateQueries({ queryKey: SESSIONS_KEY });
		close();
		navigate({ page: "chat", sessionId: forked.id });
	});
	const first = useFocusOnMount<HTMLFormElement>(focus);
	return (
		<form
			ref={first}
			tabIndex={-1}
			className="msg-choice"
			aria-label="Fork from before this message"
			onKeyDown={escapeCancels(close)}
			onSubmit={(event) => {
				event.preventDefault();
				fork.act();
			}}
		>
			<fieldset className="fork-where">
				<legend>Fork into</legend>
				<label>
					<input type="radio" name={where} checked={!newFolder} onChange={() => setNewFolder(false)} /> Same folder
				</label>
				<label>
					<input type="radio" name={where} checked={newFolder} onChange={() => setNewFolder(true)} /> New folder, with
					the files as they were:
				</label>
			</fieldset>
			<input
				type="text"
				aria-label="New folder"
				placeholder={`a new folder inside ${roots.join(" or ") || "a workspace root"}`}
				value={folder ?? suggested}
				onChange={(event) => {
					setFolder(event.target.value);
					setNewFolder(true);
				}}
			/>
			<button type="submit" className="button small" disabled={fork.busy}>
				Fork
			</button>
			<button type="button" className="button small ghost" onClick={close}>
				Cancel
			</button>
			{fork.error === undefined ? null : <span className="error-text">{fork.error}</span>}
		</form>
	);
}

/** A message's first words, for a description: enough to tell one from the next. */
function preview(text: string): string {
	const words = text.replace(/\s+/g, " ").trim();
	return words.length <= 60 ? words : `${words.slice(0, 59)}…`;
}

/**
 * A folder beside the Session's, when that is still inside a workspace root (the server makes the
 * folder there or refuses it, docs/checkpoints.md); else none is suggested.
 */
function besideInRoots(workspace: string | undefined, seq: number, roots: readonly string[]): string {
	if (workspace === undefined) return "";
	const beside = `${workspace}-fork-${seq}`;
	return roots.some((root) => beside.startsWith(`${root.replace(/\/$/, "")}/`)) ? beside : "";
}
