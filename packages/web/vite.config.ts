import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig, type ProxyOptions } from "vite";

/**
 * `npm run dev -w packages/web`: the app with hot reload, its API calls proxied to an
 * `omniloop serve` on the default port. The server refuses a foreign Origin (another site's
 * page), and the dev server's origin is foreign to it, so the proxy drops that header. The app
 * keeps the token per origin: open the dev server with the server's `#token=…` once.
 */
const api: ProxyOptions = {
	target: "http://127.0.0.1:4317",
	configure: (proxy) => proxy.on("proxyReq", (request) => request.removeHeader("origin")),
};

/**
 * Built into the server package that serves it at `/` (`packages/server/web`, in its `files`),
 * so the installed `@omniloop/server` carries the app (README: Install).
 */
export default defineConfig({
	plugins: [react()],
	// `@omniloop/client` from its TypeScript sources, so the app builds without building it first.
	resolve: { conditions: ["@omniloop/source", ...defaultClientConditions] },
	build: {
		outDir: "../server/web",
		emptyOutDir: true,
		chunkSizeWarningLimit: 1500,
		// Which plugin took how much of a build: on a busy machine (CI, `npm start` beside other work)
		// it fires on every build and says nothing about the app.
		rolldownOptions: { checks: { bundlerTimings: false } },
	},
	server: {
		host: "127.0.0.1",
		proxy: Object.fromEntries(
			["/chat", "/events", "/agents", "/usage", "/credentials", "/workflows"].map((path) => [path, api]),
		),
	},
});
