// The README's screenshots, light and dark, wide (1280 px) and narrow (390 and 768 px): the real server, the fake provider, Debian's Chromium.
// Run after `npm run build`: `npm run screenshots -w packages/web` (writes docs/screenshots/*.png).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer } from "@omniloop/core/testing";
import { createServer } from "@omniloop/server";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.mjs";

const out = fileURLToPath(new URL("../../../docs/screenshots/", import.meta.url));
const base = mkdtempSync(join(tmpdir(), "omniloop-shots-"));
const home = join(base, "home");
const root = join(base, "project");
mkdirSync(home);
mkdirSync(root);
mkdirSync(out, { recursive: true });

const provider = await FakeProviderServer.start();
writeFileSync(
	join(root, "omniloop.yaml"),
	[
		"models:",
		`  main: { provider: openai-compatible, model: qwen3-coder, baseURL: "${provider.url}/v1", apiKey: "\${KEY}", price: { input: 0.4, output: 1.6, cacheRead: 0.1 } }`,
		"agents:",
		"  default_agent: { model: main }",
	].join("\n"),
);
const GREET = 'export function greet(name: string) {\n\treturn "Hello " + name;\n}\n\nconsole.log(greet("world"));\n';
const server = await createServer({
	port: 0,
	home,
	configDir: root,
	workspaceRoots: [root],
	env: { KEY: "k" },
	report: () => {},
	// A long first wait, so the countdown screenshot catches it ticking.
	settings: { reconnect: { baseMs: 20_000 } },
});
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });

const ANSWER = [
	"## What changed",
	"",
	"`greet` now uses a **template literal**, and the file has a test:",
	"",
	"```ts",
	"export function greet(name: string): string {",
	"\treturn `Hello ${name}`;",
	"}",
	"```",
	"",
	"| file | change |",
	"| --- | --- |",
	"| `greet.ts` | template literal, return type |",
	"| `greet.test.ts` | new |",
	"",
	"Run `npm test` to check it.",
].join("\n");

/** The screen as it is now at a phone's width (390 px) and a tablet's (768 px), then wide again. */
async function narrow(page, name, theme) {
	for (const width of [390, 768]) {
		await page.setViewportSize({ width, height: width === 390 ? 844 : 1024 });
		await page.waitForTimeout(200);
		await page.screenshot({ path: join(out, `${name}-${width}-${theme}.png`) });
	}
	await page.setViewportSize({ width: 1280, height: 820 });
}

async function shoot(theme) {
	writeFileSync(join(root, "greet.ts"), GREET);
	const context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: theme });
	const page = await context.newPage();
	await page.goto(server.url);
	await page.screenshot({ path: join(out, `home-${theme}.png`) });
	await page.getByRole("button", { name: "Start the Session" }).click();
	await page.waitForURL(/#\/s\//);
	provider.enqueue(
		{
			reasoning: "The user wants the greeting modernised. Read the file first.",
			text: "Let me look at the file first.",
			toolCalls: [{ name: "read_file", arguments: { path: "greet.ts" } }],
			usage: { input: 5200, output: 120, cacheRead: 3100 },
		},
		{
			text: "I'll switch it to a template literal and add the return type:",
			toolCalls: [
				{
					name: "edit_file",
					arguments: {
						path: "greet.ts",
						old_string: 'export function greet(name: string) {\n\treturn "Hello " + name;\n}',
						new_string: "export function greet(name: string): string {\n\treturn `Hello ${name}`;\n}",
					},
				},
			],
			usage: { input: 6900, output: 210, cacheRead: 5000 },
		},
		{ text: ANSWER.split(/(?<=\n)/), chunkDelayMs: 5, usage: { input: 7600, output: 340, cacheRead: 6800 } },
	);
	const box = page.getByRole("textbox", { name: "Message" });
	await box.fill("Modernise greet.ts");
	await box.press("Enter");
	const card = page.getByRole("region", { name: /Allow edit_file/ });
	await card.waitFor();
	await page.waitForTimeout(700);
	await page.screenshot({ path: join(out, `approval-${theme}.png`) });
	await narrow(page, "approval", theme);
	await card.getByRole("button", { name: /Allow once/ }).click();
	await page
		.getByText("Run npm test", { exact: false })
		.waitFor()
		.catch(() => {});
	await page.locator(".chat-meta .badge", { hasText: "idle" }).waitFor();
	provider.enqueue({ text: "Modernise greet.ts" });
	await page.getByRole("button", { name: "Generate title" }).click();
	// The heading may show the first message before the title request is answered: wait for it.
	while (provider.pendingReplies > 0) await page.waitForTimeout(50);
	await page.getByRole("button", { name: "Generate title" }).isEnabled();
	await page.waitForTimeout(500);
	await page.screenshot({ path: join(out, `chat-${theme}.png`) });
	await narrow(page, "chat", theme);
	// The checkpoint list, one checkpoint opened, and a message's rewind choice (docs/checkpoints.md).
	const panel = page.locator("details.checkpoints");
	await panel.locator("summary").first().click();
	await panel.getByRole("listitem", { name: "Checkpoint 1" }).locator("summary").click();
	await panel.getByRole("list", { name: "Files a restore changes" }).waitFor();
	const mine = page.locator(".user-turn").first();
	await mine.getByRole("button", { name: "Rewind to here" }).click();
	await page.waitForTimeout(300);
	await page.screenshot({ path: join(out, `checkpoints-${theme}.png`) });
	await mine.getByRole("button", { name: "Cancel" }).click();
	await panel.locator("summary").first().click();
	await page.setViewportSize({ width: 390, height: 844 });
	await page.getByRole("button", { name: "☰ Sessions" }).click();
	await page.waitForTimeout(300);
	await page.screenshot({ path: join(out, `drawer-390-${theme}.png`) });
	await page.keyboard.press("Escape");
	await page.setViewportSize({ width: 1280, height: 820 });
	await page.getByRole("link", { name: "Usage" }).click();
	await page.locator(".chart canvas").first().waitFor();
	await page.waitForTimeout(300);
	await page.screenshot({ path: join(out, `usage-${theme}.png`) });
	await page
		.getByRole("link", { name: /Modernise greet.ts/ })
		.first()
		.click();
	provider.enqueue({ fault: { kind: "status", status: 503, message: "Service temporarily overloaded" } });
	await box.fill("Now add a test for greet");
	await box.press("Enter");
	await page.getByRole("region", { name: "Reconnecting" }).waitFor();
	await page.waitForTimeout(1500);
	await page.screenshot({ path: join(out, `reconnect-${theme}.png`) });
	await page.getByRole("button", { name: "Give up" }).click();
	await page.locator(".chat-meta .badge", { hasText: "idle" }).waitFor();
	await context.close();
}

try {
	await shoot("light");
	await shoot("dark");
	console.log(`screenshots in ${out}`);
} finally {
	await browser.close();
	await server.close();
	await provider.close();
	rmSync(base, { recursive: true, force: true });
}
