import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** Static files the Runtime Server serves at `/` (`packages/web/dist`). */
export default defineConfig({
	plugins: [react()],
	build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
	server: {
		// `npm run dev -w packages/web`: the API of an `omniloop serve` on its default port.
		proxy: Object.fromEntries(
			["/chat", "/events", "/agents", "/usage", "/credentials"].map((path) => [path, "http://127.0.0.1:4317"]),
		),
	},
});
