// The rendering benchmark: the time to render one more token as an answer grows from 1 to 200
// paragraphs, and the composer's cost of a 1 MB paste and of the keys typed after it, in Debian's
// Chromium. `npm run bench:render -w packages/web` (after `npm ci`); writes
// docs/render-bench.json and prints a table.
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { build } from "vite";
import { CHROMIUM, CHROMIUM_ARGS } from "../scripts/chromium.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = join(here, "..", "node_modules", ".bench-render");
await build({
	root: here,
	logLevel: "warn",
	build: { outDir, emptyOutDir: true, rollupOptions: { input: join(here, "render.html") } },
});

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
const server = createServer(async (req, res) => {
	const path = new URL(req.url ?? "/", "http://x").pathname;
	try {
		const body = await readFile(join(outDir, path === "/" ? "render.html" : path.replaceAll("..", "")));
		res.writeHead(200, { "content-type": types[extname(path) || ".html"] ?? "application/octet-stream" });
		res.end(body);
	} catch {
		res.writeHead(404).end();
	}
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const SIZES = [1, 10, 50, 100, 200];
const TOKENS = Number(process.env.BENCH_TOKENS ?? 100);
try {
	const page = await browser.newPage();
	await page.goto(`http://127.0.0.1:${port}/`);
	await page.waitForFunction(() => typeof window.runBench === "function" && typeof window.runPasteBench === "function");
	const result = await page.evaluate(([sizes, tokens]) => window.runBench(sizes, tokens), [SIZES, TOKENS]);
	// A first paste warms the JIT; the second is the one measured.
	await page.evaluate(() => window.runPasteBench(1_000_000, 20));
	const composer = await page.evaluate(() => window.runPasteBench(1_000_000, 50));
	const rows = Object.entries(result).map(([variant, bySize]) => ({
		variant,
		...Object.fromEntries(SIZES.map((s) => [`${s} ¶ (ms)`, Number(bySize[s].toFixed(2))])),
	}));
	console.table(rows);
	console.log(
		`composer: a 1 MB paste ${composer.pasteMs.toFixed(1)} ms; a key after it ${composer.keystrokeMs.toFixed(2)} ms (median)`,
	);
	await writeFile(
		join(here, "..", "..", "..", "docs", "render-bench.json"),
		`${JSON.stringify({ measured: new Date().toISOString(), tokensPerSize: TOKENS, medianMsPerToken: result, composer1MbPaste: composer }, null, 2)}\n`,
	);
} finally {
	await browser.close();
	server.close();
}
