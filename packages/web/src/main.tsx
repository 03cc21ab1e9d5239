import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { takeToken } from "./api/token.js";
import { App } from "./app/App.js";
import "./styles/app.css";

takeToken();
const client = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root");
createRoot(root).render(
	<StrictMode>
		<QueryClientProvider client={client}>
			<App />
		</QueryClientProvider>
	</StrictMode>,
);
