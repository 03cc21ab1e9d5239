import { describe, expect, it } from "vitest";
import { Editor } from "./editor.js";
import type { KeyEvent } from "./keys.js";

function edit(...events: KeyEvent[]): Editor {
	const editor = new Editor();
	for (const event of events) editor.apply(event);
	return editor;
}

const text = (t: string): KeyEvent => ({ kind: "text", text: t });

describe("Editor", () => {
	it("inserts at the cursor and deletes around it", () => {
		const e = edit(text("helo"), { kind: "left" }, text("l"), { kind: "end" }, { kind: "backspace" });
		expect(e.state).toEqual({ text: "hell", cursor: 4 });
	});

	it("a newline key and a paste keep their line breaks; take() returns the message as written", () => {
		const e = edit(text("one"), { kind: "newline" }, { kind: "paste", text: "  two\nthree" });
		expect(e.take()).toEqual({ text: "one\n  two\nthree", shown: "one\n  two\nthree" });
		expect(e.state).toEqual({ text: "", cursor: 0 });
	});

	it("a long paste is shown as one label and sent whole; ↑ brings it back whole", () => {
		const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
		const e = edit(text("see: "), { kind: "paste", text: long }, text(" ok"));
		expect(e.text).toBe("see: [Pasted 30 lines] ok");
		expect(e.take()).toEqual({ text: `see: ${long} ok`, shown: "see: [Pasted 30 lines] ok" });
		e.apply({ kind: "up" });
		expect(e.take().text).toBe(`see: ${long} ok`);
		const wide = edit({ kind: "paste", text: "x".repeat(5000) });
		expect(wide.text).toBe("[Pasted 1 line]");
		// A paste's closing line break is no line of its own: 30 lines with one count 30, and 20 stay shown.
		expect(edit({ kind: "paste", text: `${long}\n` }).text).toBe("[Pasted 30 lines]");
		const twenty = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n")}\n`;
		expect(edit({ kind: "paste", text: twenty }).text).toBe(twenty);
	});

	it("Ctrl-W deletes a word, Ctrl-U to the line's start, Ctrl-K to its end", () => {
		expect(edit(text("git commit -m"), { kind: "ctrl", key: "w" }).text).toBe("git commit ");
		expect(edit(text("abc def"), { kind: "word-left" }, { kind: "ctrl", key: "u" }).state).toEqual({
			text: "def",
			cursor: 0,
		});
		expect(edit(text("abc def"), { kind: "home" }, { kind: "ctrl", key: "k" }).text).toBe("");
	});

	it("↑/↓ walk the history from the last message, and back to the draft", () => {
		const e = new Editor();
		for (const message of ["first", "second"]) {
			e.apply(text(message));
			e.take();
		}
		e.apply(text("draft"));
		e.apply({ kind: "up" });
		expect(e.text).toBe("second");
		e.apply({ kind: "up" });
		expect(e.text).toBe("first");
		e.apply({ kind: "down" });
		e.apply({ kind: "down" });
		expect(e.text).toBe("draft");
	});

	it("in a message of several lines ↑ moves up a line before it reaches the history", () => {
		const e = edit(text("ab"), { kind: "newline" }, text("cd"));
		e.apply({ kind: "up" });
		expect(e.state).toEqual({ text: "ab\ncd", cursor: 2 });
	});

	it("moves and deletes by whole characters: an emoji, a flag, an accented letter are never split", () => {
		expect(edit(text("ok 🎉"), { kind: "backspace" }).text).toBe("ok ");
		const flag = edit(text("a🇫🇷b"), { kind: "left" }, { kind: "left" });
		expect(flag.state).toEqual({ text: "a🇫🇷b", cursor: 1 });
		flag.apply({ kind: "delete" });
		expect(flag.state).toEqual({ text: "ab", cursor: 1 });
		const accent = edit(text("e\u0301x"), { kind: "left" }, { kind: "left" });
		expect(accent.state.cursor).toBe(0);
		accent.apply({ kind: "right" });
		expect(accent.state.cursor).toBe(2);
		const ctrl = edit(text("🎉🎉"), { kind: "ctrl", key: "b" });
		expect(ctrl.state.cursor).toBe(2);
		ctrl.apply({ kind: "ctrl", key: "f" });
		expect(ctrl.state.cursor).toBe(4);
		// ↑ keeps the column in UTF-16 units; a cursor that would land inside an emoji goes to its start.
		const lines = edit(text("🎉🎉"), { kind: "newline" }, text("abc"), { kind: "up" });
		expect(lines.state.cursor).toBe(2);
		expect(edit(text("ok 🎉"), { kind: "backspace" }).take().text).toBe("ok ");
	});
});
