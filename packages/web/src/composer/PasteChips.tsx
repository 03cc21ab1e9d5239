import type { Paste } from "./pastes.js";

/** The long pastes waiting to go with the next message, each "[Pasted N lines]", each removable. */
export function PasteChips({ pastes, remove }: { pastes: readonly Paste[]; remove: (id: number) => void }) {
	if (pastes.length === 0) return null;
	return (
		<ul className="pastes" aria-label="Pasted text">
			{pastes.map((paste) => (
				<li key={paste.id} className="paste-chip">
					<span>
						[Pasted {paste.lines.toLocaleString("en-US")} lines,{" "}
						{Math.ceil(paste.text.length / 1024).toLocaleString("en-US")} KB]
					</span>
					<button
						type="button"
						className="link-button"
						aria-label={`Remove the pasted ${paste.lines} lines`}
						onClick={() => remove(paste.id)}
					>
						×
					</button>
				</li>
			))}
		</ul>
	);
}
