import { describe, expect, it } from "vitest";
import { useFixtures } from "./cli-harness.js";
import { useTerminals } from "./tmux-harness.js";

const start = useFixtures();
const terminal = useTerminals();
const IDLE = "Enter sends ·";

describe("the terminal UI's output", () => {
	it("renders markdown: headings, emphasis, lists and a framed code block, wrapped at word boundaries", async () => {
		const f = await start();
		// The bold span crosses the wrap column: the line is not cut inside it.
		const long = "This sentence is long enough that it has to **wrap on a terminal** sixty columns wide, at a space.";
		f.server.enqueue({
			text: ["## Plan\n", "1. Run **npm ci**\n", "- then `npm test`\n\n", "```ts\n", "const x = 1;\n", "```\n", long],
			chunkDelayMs: 20,
		});
		const t = await terminal(f, ["chat"], { columns: 60 });
		await t.waitFor(IDLE);
		await t.type("how do I test?");
		await t.press("Enter");
		const screen = await t.waitFor("── done");
		expect(screen).toMatch(/^Plan$/m);
		expect(screen).toContain("  1. Run npm ci");
		expect(screen).toContain("  • then npm test");
		expect(screen).toMatch(/╭─ ts\n +│ const x = 1;\n +╰─/);
		expect(screen).not.toContain("**");
		expect(screen).not.toContain("```");
		// Every line of the wrapped sentence ends at a whole word.
		const wrapped = screen.split("\n").filter((line) => /sentence|wrap on|columns wide|at a space/.test(line));
		expect(wrapped.length).toBeGreaterThan(1);
		expect(wrapped.join(" ").replace(/\s+/g, " ").trim()).toBe(long.replaceAll("**", ""));
	});

	it("reasoning streams set apart, is folded to one line when done, and Ctrl-O unfolds it", async () => {
		const f = await start();
		f.server.enqueue({
			reasoning: ["First I think about it.\n", "Then I think more.\n", "Finally I decide."],
			text: "The answer is 42.",
			chunkDelayMs: 20,
		});
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("what is the answer?");
		await t.press("Enter");
		const folded = await t.waitFor("── done");
		expect(folded).toContain("▸ reasoning: First I think about it. (+2 lines) · Ctrl-O unfolds");
		expect(folded).not.toContain("Then I think more.");
		await t.press("C-o");
		const unfolded = await t.waitFor("┊ Finally I decide.");
		expect(unfolded).toContain("┊ Then I think more.");
	});

	it("a running tool is counted in the status line; Ctrl-C stops the Task and keeps the chat; Ctrl-C on an empty input at the prompt leaves", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_slow", name: "shell", arguments: { command: "sleep 20" } }] },
			{ text: "Picking up." },
		);
		const t = await terminal(f, ["--yes", "chat"]);
		await t.waitFor(IDLE);
		await t.type("run the slow thing");
		await t.press("Enter");
		await t.waitFor("→ shell sleep 20");
		// While the tool runs, the status line says what is running and for how long.
		await t.waitFor(/running shell sleep 20… [1-9] s/);
		await t.keep("running");
		await t.press("C-c");
		await t.waitFor("interrupted — the next message continues from here");
		await t.waitFor(IDLE);
		await t.type("go on");
		await t.press("Enter");
		await t.waitFor("Picking up.");
		expect(f.requestBody(1)).toContain("[interrupted: tool aborted by user]");
		await t.waitFor(IDLE);
		await t.press("C-c");
		const left = await t.waitFor(/\[exited \d+\]/);
		expect(left).toMatch(/Session [0-9a-f-]{36} · continue it with/);
		expect(left).toContain("[exited 130]");
	});

	it("an approval box that opens while a person types takes none of their letters as its answer", async () => {
		const f = await start();
		f.server.enqueue(
			{
				text: ["Thinking ", "it ", "over ", "first."],
				chunkDelayMs: 150,
				toolCalls: [{ id: "call_sh", name: "shell", arguments: { command: "echo hi" } }],
			},
			{ text: ["Done", " with", " it."], chunkDelayMs: 200 },
			{ text: "Steer taken." },
		);
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("go");
		await t.press("Enter");
		await t.waitFor("Thinking");
		// "a" and "n" are answers; typed as part of a message they must stay in it. Typed a few
		// keys at a time, as fast typists' keys arrive (and so a loaded machine's pause between
		// two sends cannot turn the next letter into an answer).
		for (const piece of "and now also this, and again!".match(/.{1,3}/g) ?? []) {
			await t.type(piece);
			await new Promise((resolve) => setTimeout(resolve, 60));
		}
		await t.waitFor("Allow shell?");
		const typed = await t.waitFor("steer> and now also this, and again!");
		expect(typed).toContain("Allow shell?");
		await t.keep("typing-through-the-box");
		await new Promise((resolve) => setTimeout(resolve, 600));
		await t.type("y");
		await t.waitFor("  allowed");
		await t.press("Enter");
		// The steer goes with the tool's output, or (sent after that request) in a request of its own.
		await t.waitFor("── done", 15_000);
		// Sent whole, as a steer or (if the Task had just ended) as the next message.
		expect(f.server.requests.map((r) => r.rawBody).join("\n")).toContain("and now also this, and again!");
	});

	it('omniloop "some task" in a terminal opens the chat with that message sent', async () => {
		const f = await start();
		f.server.enqueue({ text: "It is a CLI." });
		const t = await terminal(f, ["what is this project?"]);
		const screen = await t.waitFor("── done");
		expect(screen).toMatch(/you> what is this project\?\n+It is a CLI\./);
		expect(f.requestBody(0)).toContain("what is this project?");
	});

	it("run in a terminal: the approval box takes one key, and leaving prints the Session", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.md", content: "# Note\nhello\n" } }] },
			{ text: "Wrote the note." },
		);
		const t = await terminal(f, ["run", "write a note"]);
		const box = await t.waitFor("a always allow this tool");
		await t.keep("box");
		expect(box).toContain("Allow write_file?");
		expect(box).toContain("note.md (new file)");
		expect(box).toContain("+ # Note");
		expect(box).toContain("+ hello");
		await t.type("n");
		const done = await t.waitFor(/\[exited \d+\]/);
		expect(done).toContain("denied");
		expect(done).toContain("[exited 0]");
		expect(done).toMatch(/Session [0-9a-f-]{36} · continue it with/);
	});
});
