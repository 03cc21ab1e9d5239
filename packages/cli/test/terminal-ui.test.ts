import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFixtures } from "./cli-harness.js";
import { useTerminals } from "./tmux-harness.js";

const start = useFixtures();
const terminal = useTerminals();
const IDLE = "Enter sends ·";

/** The text of every user message the fake provider was sent, in order, as the model read it. */
function userTexts(bodies: readonly string[]): string[] {
	return bodies.flatMap((body) => {
		const messages = (JSON.parse(body) as { messages?: { role: string; content: unknown }[] }).messages ?? [];
		return messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : ""));
	});
}

describe("the terminal UI in a pseudo-terminal", () => {
	it("a bracketed paste of three lines reaches the provider as one message", async () => {
		const f = await start();
		f.server.enqueue({ text: "Got all three lines." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.paste("first line\nsecond line\n  third line, indented");
		const pasted = await t.waitFor("  third line, indented");
		await t.keep("pasted");
		expect(f.server.requests).toHaveLength(0);
		expect(pasted).toMatch(/you> first line\s*│\s*\n│ +second line/);
		await t.press("Enter");
		await t.waitFor("── done");
		expect(f.server.requests).toHaveLength(1);
		expect(userTexts([f.requestBody(0)])).toEqual(["first line\nsecond line\n  third line, indented"]);
	});

	it("a 310 KB paste shows at once as [Pasted N lines], in the input and the conversation, and is sent whole", async () => {
		const f = await start();
		f.server.enqueue({ text: "Read it all." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		const lines = Array.from({ length: 5000 }, (_, i) => `row ${String(i).padStart(4, "0")} ${"x".repeat(56)}`);
		const text = lines.join("\n");
		expect(text.length).toBeGreaterThan(310_000);
		await t.type("summarize ");
		const started = Date.now();
		await t.paste(text);
		await t.waitFor("you> summarize [Pasted 5000 lines]");
		const shownMs = Date.now() - started;
		await t.keep("pasted");
		// The old input box drew the whole paste: ~5 s for this size. A loaded machine gets slack.
		expect(shownMs).toBeLessThan(2500);
		await t.press("Enter");
		const screen = await t.waitFor("── done");
		expect(screen).toContain("you> summarize [Pasted 5000 lines]");
		expect(screen).not.toContain("row 0001");
		expect(userTexts([f.requestBody(0)])).toEqual([`summarize ${text}`]);
	});

	it("/new starts a Session, /sessions <id> goes back to one, /model switches the model or says why not", async () => {
		const f = await start({ agents: ["other: { model: main }"] });
		f.server.enqueue({ text: "Answer one." }, { text: "Answer two." }, { text: "Answer three." }, { text: "Four." });
		const t = await terminal(f, ["chat"], { columns: 160 });
		await t.waitFor(IDLE);
		await t.type("first question");
		await t.press("Enter");
		const first = await t.waitFor("── done");
		const firstId = /session ([0-9a-f-]{36}) \(new\)/.exec(first)?.[1] as string;
		expect(firstId).toBeDefined();
		await t.type("/new");
		await t.press("Enter");
		const made = await t.waitFor(
			/session (?![\s\S]*session \S+ \(new\)[\s\S]*session)([0-9a-f-]{36}) \(new\) · model .* · the next Task runs here/,
		);
		const secondId = /session ([0-9a-f-]{36}) \(new\) · model/.exec(made)?.[1] as string;
		expect(secondId).not.toBe(firstId);
		await t.type("second question");
		await t.press("Enter");
		await t.waitFor("Answer two.");
		// The new Session's request carries none of the first one's conversation.
		expect(f.requestBody(1)).not.toContain("first question");
		await t.waitFor(IDLE);
		await t.type("/sessions");
		await t.press("Enter");
		const listed = await t.waitFor("/sessions <id> goes on with one of them");
		expect(listed).toContain(firstId);
		expect(listed).toContain(secondId);
		await t.type(`/sessions ${firstId.slice(0, 8)}`);
		await t.press("Enter");
		const back = await t.waitFor(`session ${firstId} (resumed)`);
		// Its conversation so far is shown again, as --resume shows it.
		expect(back.split("you> first question").length - 1).toBe(2);
		expect(back).toContain("── earlier in this Session ──");
		await t.type("third question");
		await t.press("Enter");
		await t.waitFor("Answer three.");
		expect(f.requestBody(2)).toContain("first question");
		expect(f.requestBody(2)).not.toContain("second question");
		await t.waitFor(IDLE);
		await t.type("/model nosuch");
		await t.press("Enter");
		const refused = await t.waitFor("(the chat stays in this Session)");
		expect(refused).toMatch(/\/model nosuch: .*nosuch/);
		await t.type("/model main");
		await t.press("Enter");
		await t.waitFor(`session ${firstId} (resumed) · model main`);
		await t.type("fourth");
		await t.press("Enter");
		await t.waitFor("Four.");
		expect(f.requestBody(3)).toContain("third question");
		await t.press("C-d");
		const left = await t.waitFor("[exited 0]");
		expect(left).toContain(`Session ${firstId} · continue it with`);
	});

	it("Alt+Enter writes a new line; Enter sends both lines as one message; ↑ brings it back", async () => {
		const f = await start();
		f.server.enqueue({ text: "Two lines." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("line one");
		await t.press("M-Enter");
		await t.type("line two");
		await t.press("Enter");
		await t.waitFor("── done");
		expect(userTexts([f.requestBody(0)])).toEqual(["line one\nline two"]);
		await t.waitFor(IDLE);
		await t.press("Up");
		await t.waitFor(/you> line one\s*│\s*\n│ +line two/);
	});

	it("text typed during streaming, in a burst and at a person's speed, arrives exactly as typed and never inside the answer", async () => {
		const f = await start();
		const words = Array.from({ length: 60 }, (_, i) => `word${i} `);
		f.server.enqueue(
			{ text: ["Streaming: ", ...words, "end."], chunkDelayMs: 100 },
			{ text: "Steered once." },
			{ text: "Steered twice." },
		);
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("stream something");
		await t.press("Enter");
		await t.waitFor("Streaming: word0");
		await t.type("abcdefghijklmnop");
		await t.press("Enter");
		await t.typeSlowly("typed slowly, key by key", 30);
		await t.keep("typed-while-streaming");
		await t.press("Enter");
		const screen = await t.waitFor(/Steered (once|twice)\.[\s\S]*── done/, 15_000);
		const bodies = f.server.requests.map((r) => r.rawBody).join("\n");
		expect(bodies).toContain("[user_steering]abcdefghijklmnop[/user_steering]");
		expect(bodies).toContain("[user_steering]typed slowly, key by key[/user_steering]");
		// The answer's lines hold the answer only; the typed text is on its own echo lines.
		const answer = screen.split("\n").filter((line) => /word\d|Streaming:|end\./.test(line));
		expect(answer.length).toBeGreaterThan(0);
		for (const line of answer) {
			expect(line).not.toMatch(/abcdefghijklmnop|typed slowly/);
		}
		expect(screen).toContain("you> abcdefghijklmnop");
		expect(screen).toContain("you> typed slowly, key by key");
		expect(answer.join(" ").replace(/\s+/g, " ").trim()).toBe(`Streaming: ${words.join("")}end.`);
	});

	it("with no sandbox on this machine, --yes still asks about a shell call, and the box says it would run unsandboxed", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_s", name: "shell", arguments: { command: "echo hi" } }] },
			{ text: "Ok." },
		);
		const t = await terminal(f, ["--yes", "chat"], {
			env: { OMNILOOP_BWRAP: join(f.workspace, "no-bwrap") },
			columns: 200,
		});
		await t.waitFor(IDLE);
		await t.type("say hi");
		await t.press("Enter");
		const box = await t.waitFor("a always allow this tool");
		await t.keep("box");
		expect(box).toContain("Allow shell?");
		expect(box).toContain("the workspace-write sandbox is not available here (bubblewrap is not installed");
		await t.type("n");
		await t.waitFor("Ok.");
	});

	it("an edit_file approval shows the diff in its box; y allows it with one key", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "config.txt"), "name: demo\nport: 8080\nmode: dev\n");
		f.server.enqueue(
			{
				toolCalls: [
					{
						id: "call_e",
						name: "edit_file",
						arguments: { path: "config.txt", old_string: "port: 8080", new_string: "port: 9090" },
					},
				],
			},
			{ text: "Changed the port." },
		);
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("change the port");
		await t.press("Enter");
		const box = await t.waitFor("a always allow this tool");
		await t.keep("box");
		expect(box).toContain("Allow edit_file?");
		expect(box).toMatch(/- port: 8080/);
		expect(box).toMatch(/\+ port: 9090/);
		expect(box).toMatch(/ {2}name: demo/);
		await t.type("y");
		await t.waitFor("Changed the port.");
		expect(readFileSync(join(f.workspace, "config.txt"), "utf8")).toBe("name: demo\nport: 9090\nmode: dev\n");
	});

	it("/undo asks its question in the box and a typed y answers it; /rewind's picker asks which message", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "hello\n" } }] },
			{ text: "Wrote the note." },
		);
		const t = await terminal(f, ["chat"], { columns: 160 });
		await t.waitFor(IDLE);
		await t.type("write a note");
		await t.press("Enter");
		await t.waitFor("a always allow this tool");
		await t.type("y");
		await t.waitFor("Wrote the note.");
		await t.waitFor(IDLE);
		await t.type("/undo");
		await t.press("Enter");
		const asked = await t.waitFor("Enter with nothing cancels");
		expect(asked).toContain("restore them? [y/N]");
		expect(asked).toContain("answer>");
		expect(readFileSync(join(f.workspace, "note.txt"), "utf8")).toBe("hello\n");
		await t.type("y");
		await t.press("Enter");
		await t.waitFor("restored 1 file(s) to checkpoint");
		expect(existsSync(join(f.workspace, "note.txt"))).toBe(false);
		await t.waitFor(IDLE);
		await t.type("/rewind");
		await t.press("Enter");
		const picker = await t.waitFor("Enter with nothing cancels");
		expect(picker).toMatch(/1\. write a note/);
		expect(picker).toMatch(/\? \[1-1, empty to cancel\]/);
		await t.press("Enter");
		await t.waitFor(IDLE);
		// Esc, and Ctrl-C, cancel a question as an empty answer does: the chat stays.
		for (const key of ["Escape", "C-c"]) {
			await t.type("/rewind");
			await t.press("Enter");
			await t.waitFor("Enter with nothing cancels");
			await t.press(key);
			await t.waitFor(IDLE);
		}
		await t.type("/usage");
		await t.press("Enter");
		await t.waitFor(/Session [0-9a-f-]{36}: input/);
	});

	it("while the model has not answered, the waiting line counts the seconds; then the reconnect countdown", {
		timeout: 40_000,
	}, async () => {
		// Waits of some seconds each (the model's first byte, then the reconnect): a test this long.
		const f = await start({
			systemConfig: ["timeouts: { firstByteMs: 6500 }", "reconnect: { baseMs: 2000, capMs: 2000 }"],
		});
		f.server.enqueue({ text: "never sent", fault: { kind: "stall", afterEvents: 0 } }, { text: "Here at last." });
		const t = await terminal(f, ["chat"]);
		await t.waitFor(IDLE);
		await t.type("hello?");
		await t.press("Enter");
		// Any count, then a higher one: a busy machine's screen reads may skip a second, not the count.
		const first = await t.waitFor(/waiting for the model… [1-3] s/);
		const seconds = Number(/waiting for the model… (\d) s/.exec(first)?.[1]);
		await t.waitFor(new RegExp(`waiting for the model… [${seconds + 1}-6] s`));
		await t.keep("waiting");
		await t.waitFor(/retrying in \d\.\d s \(attempt 1 of 5\)/, 15_000);
		await t.keep("countdown");
		await t.waitFor("Here at last.", 8000);
	});

	it("--resume shows the earlier conversation; leaving prints the Session id and the command that continues it", async () => {
		const f = await start();
		f.server.enqueue({ text: "The capital of France is **Paris**." }, { text: "It has about two million people." });
		const first = await terminal(f, ["chat"]);
		await first.waitFor(IDLE);
		await first.type("what is the capital of France?");
		await first.press("Enter");
		await first.waitFor("── done");
		await first.press("C-d");
		const left = await first.waitFor("[exited 0]");
		const id = /Session ([0-9a-f-]{36}) · continue it with: omniloop --config-dir \S+ --resume \1/.exec(left)?.[1];
		expect(id, left).toBeDefined();

		const second = await terminal(f, ["--resume", id as string, "chat"]);
		const shown = await second.waitFor("(resumed)");
		expect(shown).toContain("── earlier in this Session ──");
		expect(shown).toContain("you> what is the capital of France?");
		expect(shown).toContain("The capital of France is Paris.");
		await second.type("and its population?");
		await second.press("Enter");
		await second.waitFor("It has about two million people.");
		expect(f.requestBody(1)).toContain("The capital of France is **Paris**.");
	});

	it("the sessions table fits the terminal: one line a Session at 80 columns, and in /sessions at 120", async () => {
		const f = await start();
		const task = "please look at every file in this folder and tell me what the project does";
		f.server.enqueue({ text: "A project." });
		const made = await f.run(["run", task]);
		expect(made.exit.code, made.cli.transcript()).toBe(0);
		const id = JSON.parse((await f.run(["--json", "sessions"])).cli.stdoutLines[0] as string).sessionId as string;

		const listed = await terminal(f, ["sessions"], { columns: 80 });
		const shown = await listed.waitFor("[exited 0]");
		// capture-pane joins a wrapped line: a row that wrapped would be longer than the terminal.
		const row = shown.split("\n").find((line) => line.startsWith(id.slice(0, 8)));
		expect(row, shown).toMatch(/ please look.*…$/);
		expect((row as string).length, shown).toBeLessThanOrEqual(80);

		const t = await terminal(f, ["chat"], { columns: 120 });
		await t.waitFor(IDLE);
		await t.type("/sessions");
		await t.press("Enter");
		const table = await t.waitFor("/sessions <id> goes on with one of them");
		const tuiRow = table.split("\n").find((line) => line.includes(id.slice(0, 8)));
		expect(tuiRow, table).toMatch(/ please look at every file/);
		expect((tuiRow as string).length, table).toBeLessThanOrEqual(120);
	});

	it("--resume without an id shows this folder's Sessions, numbered, and goes on with the one picked", async () => {
		const f = await start();
		f.server.enqueue({ text: "Paris." }, { text: "Rome." }, { text: "About 2.8 million." });
		const first = await f.run(["run", "the capital of France?"]);
		expect(first.exit.code, first.cli.transcript()).toBe(0);
		const second = await f.run(["run", "the capital of Italy?"]);
		expect(second.exit.code, second.cli.transcript()).toBe(0);

		const t = await terminal(f, ["--resume"]);
		const list = await t.waitFor(/\[1-2, empty to cancel\]/);
		expect(list).toContain("Resume which Session?");
		expect(list).toMatch(/ 1\. the capital of Italy\? · just now · 2 messages/);
		expect(list).toMatch(/ 2\. the capital of France\? · just now · 2 messages/);
		await t.type("1");
		await t.press("Enter");
		const shown = await t.waitFor("(resumed)");
		expect(shown).toContain("you> the capital of Italy?");
		await t.waitFor(IDLE);
		await t.type("its population?");
		await t.press("Enter");
		await t.waitFor("About 2.8 million.");
		expect(f.requestBody(2)).toContain("the capital of Italy?");
		expect(f.requestBody(2)).not.toContain("the capital of France?");
	});
});
