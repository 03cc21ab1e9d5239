import { useEffect, useState } from "react";
import { useToken } from "../api/token.js";
import { ChatView } from "../chat/ChatView.js";
import { Sidebar } from "../sidebar/Sidebar.js";
import { UsagePage } from "../usage/UsagePage.js";
import { HomePage } from "./HomePage.js";
import { MobileBar } from "./MobileBar.js";
import { hrefOf, useRoute } from "./route.js";
import { TokenGate } from "./TokenGate.js";
import { useTabStream } from "./use-tab-stream.js";

/** The app once the tab has a token; a new token starts it afresh (its stream, its queries). */
export function App() {
	const { token, refused } = useToken();
	if (token === undefined || refused) return <TokenGate refused={refused} />;
	return <SignedIn key={token} />;
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
			<main className="main">
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
