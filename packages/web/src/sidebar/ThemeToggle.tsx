import { useEffect, useState } from "react";

type Theme = "light" | "dark";

function initialTheme(): Theme {
	const stored = localStorage.getItem("omniloop-theme");
	if (stored === "light" || stored === "dark") return stored;
	return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** Light or dark: the system's choice until the person picks one (kept in this browser). */
export function ThemeToggle() {
	const [theme, setTheme] = useState<Theme>(initialTheme);
	useEffect(() => {
		document.documentElement.dataset.theme = theme;
	}, [theme]);
	const other: Theme = theme === "dark" ? "light" : "dark";
	return (
		<button
			type="button"
			className="icon-button"
			aria-label={`Switch to the ${other} theme`}
			title={`Switch to the ${other} theme`}
			onClick={() => {
				localStorage.setItem("omniloop-theme", other);
				setTheme(other);
			}}
		>
			{theme === "dark" ? "☀" : "☾"}
		</button>
	);
}
