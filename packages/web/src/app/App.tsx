import { useEffect, useRef, useState } from "react";
import { useToken } from "../api/token.js";
import { ChatView } from "../chat/ChatView.js";
import { Sidebar } from "../sidebar/Sidebar.js";
import { UsagePage } from "../usage/UsagePage.js";
import { HomePage } from "./HomePage.js";
import { MobileBar } from "./MobileBar.js";
import { hrefOf, useRoute } from "./route.js";
import { TokenGate } from "./TokenGate.js";
import { focusSoon } from "./use-focus.js";
import { useTabStream } from "./use-tab-stream.js";

/** The app once the tab has a token; a new token starts it afresh (its stream, its queries). */
export function App() {
	const { token, refused } = useToken();
	if (token === undefined || refused) return <TokenGate refused={refused} />;
	return <SignedIn key={token} />;
}

/**
 * The drawer takes the keyboard's focus as it opens (its first link), and gives it back to the
 * button that opened it as it closes — unless a link in it was chosen, whose screen then has it.
 */
function useDrawerFocus(open: boolean): void {
	const wasOpen = useRef(false);
	useEffect(() => {
		// Once the drawer is shown (its class styled) and the browser has moved the focus off the
		// button the inert screen now holds: a frame later, again for a few frames until it holds.
		if (open) focusSoon("#sidebar .new-session");
		else if (wasOpen.current && (document.activeElement === document.body || inSidebar(document.activeElement)))
			document.querySelector<HTMLElement>(".drawer-button")?.focus();
		wasOpen.current = open;
		if (!open) return;
		// Tab goes round the drawer (and its Close): past the last, the first again, not the browser's own bar.
		const onKey = (event: KeyboardEvent) => {
			if (event.key !== "Tab") return;
			const stops = [...document.querySelectorAll<HTMLElement>(DRAWER_STOPS)].filter((el) => el.offsetParent !== null);
			const first = stops[0];
			const last = stops.at(-1);
			if (first === undefined || last === undefined) return;
			const at = document.activeElement;
			if (event.shiftKey ? at === first || !inDrawer(at) : at === last) {
				event.preventDefault();
				(event.shiftKey ? last : first).focus();
			}
		};
		window.addEventListener("keydown", onKey);
		return () => window.removeEventListener("keydown", onKey);
	}, [open]);
}

const DRAWER_STOPS = [
	"#sidebar a[href]",
	"#sidebar button:not([disabled])",
	"#sidebar input:not([disabled])",
	".drawer-backdrop",
].join(", ");

function inDrawer(element: Element | null): boolean {
	return element?.closest("#sidebar, .drawer-backdrop") != null;
}

function inSidebar(element: Element | null): boolean {
	return element?.closest("#sidebar") != null;
}

/**
 * The layout: the Sessions sidebar and the screen the hash names. On a narrow screen the sidebar is
 * a drawer (styles/layout.css), opened from the bar above the screen and closed by going anywhere.
 */
function SignedIn() {
	const route = useRoute();
	const here = hrefOf(route);
	const [drawer, setDrawer] = useState(false);
	// biome-ignore lint/correctness/useExhaustiveDependencies: a new screen (its hash) closes the drawer.
	useEffect(() => setDrawer(false), [here]);
	useDrawerFocus(drawer);
	useTabStream(route.page === "chat" ? route.sessionId : undefined);
	return (
		<div className={drawer ? "app drawer-open" : "app"}>
			<Sidebar route={route} onNavigate={() => setDrawer(false)} />
			{drawer ? (
				<button
					type="button"
					className="drawer-backdrop"
					aria-label="Close the Sessions"
					onClick={() => setDrawer(false)}
				/>
			) : null}
			{/* While the drawer is open the screen behind it takes no keys: Tab stays in the drawer. */}
			<main className="main" inert={drawer}>
				<MobileBar open={drawer} toggle={() => setDrawer((open) => !open)} />
				{route.page === "chat" ? (
					<ChatView key={route.sessionId} sessionId={route.sessionId} />
				) : route.page === "usage" ? (
					<UsagePage />
				) : (
					<HomePage />
				)}
			</main>
		</div>
	);
}
