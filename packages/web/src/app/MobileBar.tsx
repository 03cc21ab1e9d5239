import { useEffect } from "react";
import { useChat } from "../transcript/store.js";

/** Above the screen on a narrow window only (styles/layout.css): the button that opens the Sessions. */
export function MobileBar({ open, toggle }: { open: boolean; toggle: () => void }) {
	// The sidebar says it too, but on a narrow window the sidebar is a closed drawer.
	const connection = useChat((s) => s.connection);
	useEffect(() => {
		if (!open) return;
		const onKey = (event: KeyboardEvent) => {
			if (event.key === "Escape") toggle();
		};
		window.addEventListener("keydown", onKey);
		return () => window.removeEventListener("keydown", onKey);
	}, [open, toggle]);
	return (
		<div className="mobile-bar">
			<button
				type="button"
				className="button drawer-button"
				aria-controls="sidebar"
				aria-expanded={open}
				onClick={toggle}
			>
				☰ Sessions
			</button>
			<a className="brand" href="#/">
				omniloop
			</a>
			{connection === "down" ? (
				<p className="connection-down mobile-connection" role="status">
					Reconnecting…
				</p>
			) : null}
		</div>
	);
}
