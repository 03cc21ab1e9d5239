import { useEffect } from "react";

/** Above the screen on a narrow window only (styles/layout.css): the button that opens the Sessions. */
export function MobileBar({ open, toggle }: { open: boolean; toggle: () => void }) {
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
		</div>
	);
}
