import { useToken } from "../api/token.js";
import { ChatView } from "../chat/ChatView.js";
import { Sidebar } from "../sidebar/Sidebar.js";
import { UsagePage } from "../usage/UsagePage.js";
import { HomePage } from "./HomePage.js";
import { useRoute } from "./route.js";
import { TokenGate } from "./TokenGate.js";
import { useTabStream } from "./use-tab-stream.js";

/** The app once the tab has a token; a new token starts it afresh (its stream, its queries). */
export function App() {
	const { token, refused } = useToken();
	if (token === undefined || refused) return <TokenGate refused={refused} />;
	return <SignedIn key={token} />;
}

/** The layout: the Sessions sidebar and the screen the hash names. */
function SignedIn() {
	const route = useRoute();
	useTabStream(route.page === "chat" ? route.sessionId : undefined);
	return (
		<div className="app">
			<Sidebar route={route} />
			<main className="main">
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
