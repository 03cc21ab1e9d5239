import { ChatView } from "../chat/ChatView.js";
import { Sidebar } from "../sidebar/Sidebar.js";
import { UsagePage } from "../usage/UsagePage.js";
import { HomePage } from "./HomePage.js";
import { useRoute } from "./route.js";
import { useTabStream } from "./use-tab-stream.js";

/** The layout: the Sessions sidebar and the screen the hash names. */
export function App() {
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
