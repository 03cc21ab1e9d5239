/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newSession, send, slowText, startApp, waitIdle } from "./harness.js";

/** A page whose Session's Task streams a long answer, its first words shown. */
async function talking() {
	const app = await startApp();
	const page = await app.open();
	await newSession(page);
	app.reply(slowText("word ".repeat(400), 200, 50));
	await send(page, "talk for a while");
	await page.locator(".msg.assistant").getByText("word", { exact: false }).first().waitFor();
	return page;
}

describe("the chat, in a real browser against the real server", { timeout: 60_000 }, () => {
	it("streams an answer as markdown: headings, bold and highlighted code, shown once", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		const long = "x".repeat(400);
		const answer = `# Plan\n\nFirst a **bold** step.\n\n> A quoted line.\n\nA ${long} word.\n\n\`\`\`ts\nconst answer = 42;\n\`\`\`\n\nThe last paragraph.`;
		app.reply(slowText(answer, 12, 40));
		await send(page, "make a plan");
		const reply = page.locator(".msg.assistant");
		await expect.poll(() => reply.locator("h1").textContent()).toBe("Plan");
		await reply.getByText("The last paragraph.").waitFor();
		await waitIdle(page);
		expect(await reply.count()).toBe(1);
		const bold = reply.locator('[data-streamdown="strong"]');
		expect(await bold.textContent()).toBe("bold");
		// Styled as it reads: the app has no Tailwind for streamdown's own classes.
		expect(Number(await bold.evaluate((el) => getComputedStyle(el).fontWeight))).toBeGreaterThanOrEqual(600);
		const quote = reply.locator('[data-streamdown="blockquote"]');
		expect(await quote.evaluate((el) => getComputedStyle(el).borderLeftStyle)).toBe("solid");
		// A word longer than the column wraps inside it instead of running off the screen.
		const paragraph = reply.getByText(long, { exact: false });
		const { width, parent } = await paragraph.evaluate((el) => ({
			width: el.scrollWidth,
			parent: (el.closest(".msg") as HTMLElement).clientWidth,
		}));
		expect(width).toBeLessThanOrEqual(parent);
		const code = reply.locator('[data-streamdown="code-block"]');
		expect(await code.textContent()).toContain("const answer = 42;");
		// shiki colored it: its tokens are spans with their own colors.
		await expect.poll(() => code.locator("span[style*='--sdm-c']").count()).toBeGreaterThan(1);
		expect(await page.getByRole("article", { name: "You" }).textContent()).toBe("make a plan");
	});

	it("asks before a write with the diff in the composer's place: allow once, deny by key, always", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		const write = (path: string, content: string) => ({
			toolCalls: [{ name: "write_file", arguments: { path, content } }],
		});

		app.reply(write("a.txt", "hello\nworld"), { text: "wrote a.txt" });
		await send(page, "write a");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		expect(await card.locator(".diff-add").allTextContents()).toEqual(["+ hello\n", "+ world\n"]);
		expect(await page.getByRole("textbox", { name: "Message" }).count()).toBe(0);
		await card.getByRole("button", { name: /Allow once/ }).click();
		// The card goes and hands the focus back to the composer (not to <body>).
		await card.waitFor({ state: "detached" });
		await expect
			.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
			.toMatch(/^(Message|Steer the agent)$/);
		await page.getByText("wrote a.txt").waitFor();
		await waitIdle(page);
		expect(readFileSync(join(app.root, "a.txt"), "utf8")).toBe("hello\nworld");
		expect(await page.getByRole("article", { name: "Tool write_file: ok" }).count()).toBe(1);

		app.reply(write("b.txt", "no"), { text: "not written" });
		await send(page, "write b");
		await card.waitFor();
		await expect.poll(() => card.getByRole("button", { name: /Deny/ }).isEnabled()).toBe(true);
		await card.press("n");
		await page.getByText("not written").waitFor();
		await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
		expect(existsSync(join(app.root, "b.txt"))).toBe(false);
		expect(await page.getByRole("article", { name: "Tool write_file: denied" }).count()).toBe(1);

		app.reply(write("c.txt", "c"), write("d.txt", "d"), { text: "both" });
		await send(page, "write c and d");
		await card.getByRole("button", { name: /Always allow write_file/ }).click();
		await page.getByText("both").waitFor();
		// d.txt was not asked about: "always" covers the tool for the rest of the Session.
		expect(readFileSync(join(app.root, "d.txt"), "utf8")).toBe("d");
		// Its card says who allowed it (the grant, not a person asked a moment ago).
		expect(await page.getByText("allowed: always in this Session").count()).toBe(1);
		const requests = app.provider.requests.length;
		expect(requests).toBe(7);
	});

	it("the sidebar's tokens follow each request of a Task from the stream, with no refetch of the list", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		let listFetches = 0;
		page.on("request", (request) => {
			if (request.method() === "GET" && new URL(request.url()).pathname === "/chat/sessions") listFetches++;
		});
		// Each request streams a while, so each total is on screen for a while.
		const read = {
			...slowText("looking at the notes ", 10, 80),
			toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }],
			usage: { input: 1000, output: 200 },
		};
		app.reply(read, read, { ...slowText("reading done ".repeat(20), 20, 80), usage: { input: 3000, output: 500 } });
		await send(page, "read the notes");
		const tokens = page.locator(".session-link[aria-current=page] .muted");
		await expect.poll(() => tokens.textContent(), { timeout: 10_000 }).toBe("1.2k tokens");
		const fetchesBefore = listFetches;
		// The second request's total while the third still streams: from its token_usage, not a fetch.
		await expect.poll(() => tokens.textContent()).toBe("2.4k tokens");
		expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(1);
		expect(listFetches).toBe(fetchesBefore);
		await waitIdle(page);
		await expect.poll(() => tokens.textContent()).toBe("5.9k tokens");
	});

	it("stops a Task with Stop", async () => {
		const page = await talking();
		await page.getByRole("button", { name: "Stop" }).click();
		await page.getByText("The Task was stopped.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(0);
		// The cut-off answer stays in sight, marked as no answer of the history, with no Copy.
		const cut = page.getByRole("article", { name: "Agent (stopped)" });
		expect(await cut.getByText("Stopped — this partial answer is not kept in the history").count()).toBe(1);
		expect(await page.getByRole("button", { name: "Copy the answer" }).count()).toBe(0);
	});

	it("Esc in the composer stops a working Task, as Stop does; the draft stays", async () => {
		const page = await talking();
		const steer = page.getByRole("textbox", { name: "Steer the agent" });
		await steer.fill("half a thought");
		await steer.press("Escape");
		await page.getByText("The Task was stopped.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("half a thought");
	});

	it("stops a Task from the approval card too; the tab's title marks a Session that waits for you", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ toolCalls: [{ name: "shell", arguments: { command: "rm -rf build" } }] });
		await send(page, "clean up");
		const card = page.getByRole("region", { name: /Allow shell/ });
		expect(await card.locator(".command").textContent()).toBe("rm -rf build");
		// Named by its first prompt; ● while it waits for you.
		await expect.poll(() => page.title()).toBe("● clean up · omniloop");
		await card.getByRole("button", { name: "Stop the Task instead" }).click();
		await page.getByText("The Task was stopped.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("article", { name: "Tool shell: interrupted" }).count()).toBe(1);
		expect(await page.title()).toBe("clean up · omniloop");
	});

	it("the approval card says when the command would run unsandboxed (no bubblewrap on this machine)", async () => {
		const app = await startApp({ env: { OMNILOOP_BWRAP: "/nonexistent/bwrap" } });
		const page = await app.open();
		await newSession(page);
		app.reply({ toolCalls: [{ name: "shell", arguments: { command: "ls" } }] });
		await send(page, "list");
		const card = page.getByRole("region", { name: /Allow shell/ });
		const warning = await card.getByRole("alert").textContent();
		expect(warning).toMatch(
			/^Unsandboxed: the workspace-write sandbox is not available here \(bubblewrap is not installed/,
		);
		await card.getByRole("button", { name: "Stop the Task instead" }).click();
		await waitIdle(page);
	});

	it("steers while the agent works: queued, then delivered as a steer the model reads", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply(slowText("Working on it, step by step. ".repeat(20), 40, 80), { text: "Using tabs from now on." });
		await send(page, "format the file");
		await page.locator(".msg.assistant").first().waitFor();
		await send(page, "use tabs");
		await page.getByRole("list", { name: "Queued steers" }).getByText("use tabs").waitFor();
		await page.getByText("Using tabs from now on.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("list", { name: "Queued steers" }).count()).toBe(0);
		expect(await page.getByRole("article", { name: "Steer" }).textContent()).toContain("use tabs");
		expect(app.provider.requests[1]?.rawBody).toContain("[user_steering]use tabs[/user_steering]");
	});

	it("nests a subagent's messages inside the card of the call that started it", async () => {
		const app = await startApp({ agents: ['helper: { model: main, description: "Looks things up." }'] });
		const page = await app.open();
		await newSession(page);
		app.reply(
			{ toolCalls: [{ name: "agent__helper", arguments: { task: "count the notes" } }] },
			{ text: "The helper counted three lines." },
			{ text: "Your notes have three lines." },
		);
		await send(page, "ask the helper");
		await page.getByText("Your notes have three lines.").waitFor();
		await waitIdle(page);
		const card = page.getByRole("article", { name: "Tool agent__helper: ok" });
		const nested = card.getByRole("region", { name: "Subagent of agent__helper" });
		expect(await nested.getByText("The helper counted three lines.").count()).toBe(1);
		// The helper's task is its parent's call's, not a message of yours: no rewind or fork to it.
		expect(await nested.getByRole("article", { name: "Subagent's task" }).count()).toBe(1);
		expect(await nested.getByRole("article", { name: "You" }).count()).toBe(0);
		expect(await nested.getByRole("button", { name: /Rewind to here|Fork from here/ }).count()).toBe(0);
		// Not also at the top level of the chat.
		expect(await page.locator(".row > .msg.assistant", { hasText: "The helper counted" }).count()).toBe(0);
	});

	it("a click that lands as the approval appears decides nothing", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		// The moment the card is in the page, click Allow once and press y (a stray click, a key
		// meant for the composer).
		await page.evaluate(() => {
			new MutationObserver((_records, observer) => {
				const card = document.querySelector(".approval");
				const allow = card?.querySelector<HTMLButtonElement>("button.primary");
				if (card === null || allow === null || allow === undefined) return;
				observer.disconnect();
				allow.click();
				card.dispatchEvent(new KeyboardEvent("keydown", { key: "y", bubbles: true }));
				document.body.dataset.strayClicked = "yes";
			}).observe(document.body, { childList: true, subtree: true });
		});
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "s.txt", content: "s" } }] },
			{ text: "Wrote s." },
		);
		await send(page, "write s");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		expect(await page.evaluate(() => document.body.dataset.strayClicked)).toBe("yes");
		await page.waitForTimeout(800);
		expect(await card.count()).toBe(1);
		expect(app.provider.requests).toHaveLength(1);
		await card.getByRole("button", { name: /Allow once/ }).click();
		await page.getByText("Wrote s.").waitFor();
	});

	it("a steer being typed when the approval takes the composer's place answers nothing, and is kept as the draft", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		// The answer streams for a while before its call: the steer is typed meanwhile.
		app.reply(
			{
				text: Array.from({ length: 12 }, (_, i) => `part${i} `),
				chunkDelayMs: 80,
				toolCalls: [{ name: "write_file", arguments: { path: "t.txt", content: "t" } }],
			},
			{ text: "Wrote t." },
		);
		await send(page, "write t");
		const steer = page.getByRole("textbox", { name: "Steer the agent" });
		await steer.waitFor();
		await steer.focus();
		const card = page.getByRole("region", { name: /Allow write_file/ });
		// Typing goes on as the card appears: its y, a and n are letters of the sentence.
		while ((await card.count()) === 0) await page.keyboard.type("please ");
		const sentence = "also keep a backup and say yes any day, no matter what";
		await page.keyboard.type(sentence, { delay: 40 });
		expect(await card.count()).toBe(1);
		expect(app.provider.requests).toHaveLength(1);
		// What was typed into the card is kept, shown on it and back in the composer after.
		expect(await card.getByRole("textbox", { name: "Steer while it waits" }).inputValue()).toContain(sentence);
		await card.getByRole("button", { name: /Allow once/ }).click();
		await page.getByText("Wrote t.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toContain("no matter what");
	});

	it("sends the chosen thinking level with the Task", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await page.getByRole("combobox", { name: "Thinking level" }).selectOption("high");
		app.reply({ text: "Thought hard." });
		await send(page, "think");
		await page.getByText("Thought hard.").waitFor();
		expect(app.provider.requests[0]?.body).toMatchObject({ reasoning_effort: "high" });
	});
});
