import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fakeModelYaml } from "@omniloop/core/testing";
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

	it("a markdown table streamed in pieces is drawn as aligned columns, not pipes", async () => {
		const f = await start();
		f.server.enqueue({
			text: [
				"Ports:\n",
				"| Service | Port |\n",
				"|---|",
				"---:|\n",
				"| web | 8080 |\n",
				"| database | 5432 |\n",
				"That is all.",
			],
			chunkDelayMs: 20,
		});
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("which ports?");
		await t.press("Enter");
		const screen = await t.waitFor("── done");
		expect(screen).toMatch(/ {2}Service {2}│ Port\n {2}─+┼─+\n {2}web {6}│ 8080\n {2}database │ 5432\nThat is all\./);
		expect(screen).not.toContain("|---");
	});

	it("a refused connection is said whole, with its URL, and not called a timeout", async () => {
		const f = await start({ config: false });
		const port = await closedPort();
		const baseURL = `http://127.0.0.1:${port}/v1/a/rather/long/path/so/the/url/takes/room`;
		writeFileSync(join(f.configDir, "omniloop.yaml"), fakeModelYaml(baseURL, { apiKey: "k" }));
		const t = await terminal(f, ["chat"], { columns: 80 });
		await t.waitFor(IDLE);
		await t.type("hello");
		await t.press("Enter");
		const screen = await t.waitFor(/── stopped by an error/, 20_000);
		await t.keep("refused");
		const joined = screen.replace(/\n/g, "");
		expect(joined).toContain(
			`error: cannot connect to ${baseURL} (model \`main\` in ${join(f.configDir, "omniloop.yaml")}): connection refused`,
		);
		expect(screen).not.toMatch(/timeout|co…/);
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
		// "a" and "n" are answers; typed as part of a message they must stay in it.
		for (const piece of "and now also this, and again!".match(/.{1,3}/g) ?? []) {
			await t.type(piece);
			await new Promise((resolve) => setTimeout(resolve, 60));
		}
		await t.waitFor("Allow shell?");
		const typed = await t.waitFor("steer> and now also this, and again!");
		expect(typed).toContain("Tab answers this approval");
		await t.keep("typing-through-the-box");
		// Tab moves the keys to the box; y answers it; the message is still there.
		await t.press("Tab");
		await t.waitFor("a always allow this tool");
		await t.type("y");
		await t.waitFor("  allowed");
		await t.press("Enter");
		await t.waitFor("── done", 15_000);
		expect(f.server.requests.map((r) => r.rawBody).join("\n")).toContain("and now also this, and again!");
	});

	it("with an approval pending, a pause in a steer and then `a` types an a; Enter sends the steer and the approval waits", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
			{ text: "Wrote it." },
		);
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("write x");
		await t.press("Enter");
		await t.waitFor("a always allow this tool");
		// The box has the keys while the input is empty; a message's first letters take them back.
		await t.type("use tabs, not spaces ");
		await t.waitFor("Tab answers this approval");
		// However long the pause, the next letter is the message's.
		await new Promise((resolve) => setTimeout(resolve, 1500));
		await t.type("a");
		await t.waitFor("steer> use tabs, not spaces a");
		await t.press("Enter");
		const sent = await t.waitFor("you> use tabs, not spaces a");
		expect(sent).toContain("Allow write_file?");
		expect(sent).not.toContain("allowed (always");
		expect(sent).not.toContain("Wrote it.");
		// The input is empty again: the box has the keys back.
		await t.waitFor("a always allow this tool");
		await t.type("y");
		await t.waitFor("Wrote it.");
		expect(f.server.requests.map((r) => r.rawBody).join("\n")).toContain("use tabs, not spaces a");
	});

	it("with an approval pending, `a` and then more letters at typing speed start a steer; `a` alone answers after a pause", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
			{ text: "Wrote it." },
		);
		// A long pause, so the letters below surely come within it however loaded the machine is.
		const t = await terminal(f, ["chat"], { env: { OMNILOOP_ANSWER_PAUSE_MS: "3000" } });
		await t.waitFor(IDLE);
		await t.type("write x");
		await t.press("Enter");
		await t.waitFor("a always allow this tool");
		// A person types "and also…": the a is the first letter of a steer, not "always".
		await t.type("a");
		await t.typeSlowly("nd also", 40);
		const typing = await t.waitFor("steer> and also");
		expect(typing).toContain("Tab answers this approval");
		// Past the pause the held `a` would have answered; it was dropped when the next letter came.
		await new Promise((resolve) => setTimeout(resolve, 3500));
		const after = await t.screen();
		expect(after).not.toContain("allowed (always");
		expect(after).toContain("Allow write_file?");
		await t.press("Enter");
		await t.waitFor("you> and also");
		// The input is empty again: `a` alone is held, shown, and answers after the pause.
		await t.waitFor("a always allow this tool");
		await t.type("a");
		await t.waitFor("a → always… keep typing to write a steer");
		await t.waitFor("allowed (always for write_file in this Session)");
		await t.waitFor("Wrote it.");
		expect(f.server.requests.map((r) => r.rawBody).join("\n")).toContain("and also");
	});

	it("a steer sent mid-line: the answer's line so far stays above the steer, and the rest continues below it", async () => {
		const f = await start();
		const words = Array.from({ length: 12 }, (_, i) => ` w${i}`);
		f.server.enqueue({ text: ["Streaming:", ...words], chunkDelayMs: 150 }, { text: "Steered." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("stream");
		await t.press("Enter");
		await t.waitFor(/Streaming: w0 w1/);
		await t.type("steer now");
		await t.press("Enter");
		const screen = await t.waitFor(/Steered\.[\s\S]*── done/, 15_000);
		await t.keep("steer-mid-line");
		const lines = screen.split("\n");
		const steer = lines.findIndex((line) => line.includes("you> steer now"));
		const started = lines.findIndex((line) => line.includes("Streaming: w0 w1"));
		expect(steer).toBeGreaterThan(0);
		expect(started).toBeGreaterThan(-1);
		expect(started).toBeLessThan(steer);
		// Nothing is lost or repeated: the two halves are the whole answer.
		const answer = lines.filter((line) => /Streaming:|\bw\d+\b/.test(line) && !line.includes("you>"));
		expect(answer.join(" ").replace(/\s+/g, " ").trim()).toBe(`Streaming:${words.join("")}`);
	});

	it("a steer sent while a code block's closing fence is half streamed: the fence still closes, and what follows is text", async () => {
		const f = await start();
		f.server.enqueue({ text: ["Code:\n```\nx = 1\n`", "``\nAfter the fence."], chunkDelayMs: 2_000 }, { text: "Ok." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("code");
		await t.press("Enter");
		await t.waitFor(/x = 1/);
		await t.type("steer now");
		await t.press("Enter");
		const screen = await t.waitFor(/Ok\.[\s\S]*── done/, 20_000);
		const after = screen.split("\n").find((line) => line.includes("After the fence."));
		expect(after).toBeDefined();
		expect(after).not.toContain("│");
	});

	it("Esc stops a running Task and keeps the chat; the notice follows the partial line and the footer keeps the Session's tokens", async () => {
		const f = await start();
		const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
		f.server.enqueue(
			{ text: "First answer." },
			{ text: ["Streaming:", ...words.map((w) => ` ${w}`)], chunkDelayMs: 100 },
			{ text: "Picking up." },
		);
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("first");
		await t.press("Enter");
		await t.waitFor("── done");
		await t.type("stream");
		await t.press("Enter");
		await t.waitFor(/Streaming: w0 w1 w2/);
		await t.press("Escape");
		const stopped = await t.waitFor(/── interrupted · .*\n/);
		await t.keep("stopped");
		const lines = stopped.split("\n");
		const notice = lines.findIndex((line) => line.includes("interrupted — the next message continues from here"));
		const lastWords = lines.reduce((last, line, i) => (/\bw\d+\b/.test(line) ? i : last), -1);
		expect(notice).toBeGreaterThan(lastWords);
		expect(stopped).toMatch(
			/── interrupted · input 0 · cached 0 · output 0 · total 0 tokens · Session total 15 tokens/,
		);
		await t.waitFor(IDLE);
		await t.type("go on");
		await t.press("Enter");
		await t.waitFor("Picking up.");
		// Escape at the prompt, with nothing running, does not leave. (A paste, not typed keys:
		// a key typed right after Escape would read as Alt+key.)
		await t.press("Escape");
		await t.paste("still here");
		await t.waitFor("you> still here");
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

/** A port nothing listens on. */
function closedPort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
		});
	});
}
