import { useState } from "react";
import { isLong, lineCount } from "../composer/pastes.js";

/** Lines of a long message shown before "[N lines in all]": what was typed comes first (pastes.ts). */
const HEAD_LINES = 3;
const HEAD_CHARS = 400;

/** What a person sent; a long one (a paste) collapsed to its first lines until "Show all". */
export function UserText({ text }: { text: string }) {
	const [open, setOpen] = useState(false);
	if (open || !isLong(text)) return <p className="user-text">{text}</p>;
	const head = text.split("\n", HEAD_LINES).join("\n").slice(0, HEAD_CHARS);
	return (
		<>
			<p className="user-text">{head}…</p>
			<p className="paste-collapsed">
				{/* The whole message's lines: what was typed and the pastes, not a paste's own count (its chip said that). */}
				<span className="muted">[{lineCount(text).toLocaleString("en-US")} lines in all]</span>{" "}
				<button type="button" className="link-button" onClick={() => setOpen(true)}>
					Show all
				</button>
			</p>
		</>
	);
}
