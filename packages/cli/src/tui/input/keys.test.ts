import { describe, expect, it } from "vitest";
import { type KeyEvent, KeyReader } from "./keys.js";

function read(...chunks: string[]): KeyEvent[] {
	const reader = new KeyReader();
	return [...chunks.flatMap((chunk) => reader.push(chunk)), ...reader.flush()];
}

describe("KeyReader", () => {
	it("a burst of typed keys in one chunk is one text event with every character in order", () => {
		expect(read("abcdefghijklmnop")).toEqual([{ kind: "text", text: "abcdefghijklmnop" }]);
	});

	it("a bracketed paste is one event, its CR line breaks made newlines, even when cut across chunks", () => {
		expect(read("\x1b[200~one\rtwo\r\n", "thr", "ee\x1b[2", "01~")).toEqual([
			{ kind: "paste", text: "one\ntwo\nthree" },
		]);
	});

	it("Enter, Alt+Enter, Shift+Enter (kitty and modifyOtherKeys) and Ctrl-J", () => {
		expect(read("\r", "\x1b\r", "\x1b[13;2u", "\x1b[27;2;13~", "\n").map((e) => e.kind)).toEqual([
			"enter",
			"newline",
			"newline",
			"newline",
			"newline",
		]);
	});

	it("arrows, Home/End, Delete and control keys split the text around them", () => {
		expect(read("ab\x1b[Dc\x1b[3~\x01\x7f")).toEqual([
			{ kind: "text", text: "ab" },
			{ kind: "left" },
			{ kind: "text", text: "c" },
			{ kind: "delete" },
			{ kind: "ctrl", key: "a" },
			{ kind: "backspace" },
		]);
	});

	it("a sequence cut in two is kept until its end arrives; a lone ESC is the Escape key", () => {
		expect(read("\x1b", "[A")).toEqual([{ kind: "up" }]);
		expect(read("\x1b")).toEqual([{ kind: "escape" }]);
	});

	it("an unknown sequence is dropped whole, never typed as text", () => {
		expect(read("x\x1b[99;9Zy")).toEqual([
			{ kind: "text", text: "x" },
			{ kind: "text", text: "y" },
		]);
	});
});
