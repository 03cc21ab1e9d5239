import { useEffect, useState } from "react";

/** Copies a message's whole text (its markdown as written), and says so for a moment. */
export function CopyButton({ text, what }: { text: string; what: string }) {
	const [copied, setCopied] = useState(false);
	useEffect(() => {
		if (!copied) return;
		const timer = setTimeout(() => setCopied(false), 1500);
		return () => clearTimeout(timer);
	}, [copied]);
	return (
		<button
			type="button"
			className="button copy-message"
			aria-label={`Copy ${what}`}
			onClick={() =>
				void navigator.clipboard.writeText(text).then(
					() => setCopied(true),
					() => setCopied(false),
				)
			}
		>
			{copied ? "Copied" : "Copy"}
		</button>
	);
}
