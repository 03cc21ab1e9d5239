import { describe, expect, it } from "vitest";
import { createStyle } from "../../terminal/style.js";
import { MarkdownLines } from "./markdown.js";

const plain = createStyle(false);
const colour = createStyle(true);

function render(source: string, style = plain): string[] {
	const md = new MarkdownLines(style, () => 80);
	return source.split("\n").map((line) => md.render(line));
}

describe("MarkdownLines", () => {
	it("headings, emphasis, inline code and links lose their markup", () => {
		expect(render("## Setup\nRun **npm ci**, then `npm test`; see [the docs](https://x.dev).")).toEqual([
			"Setup",
			"Run npm ci, then npm test; see the docs (https://x.dev).",
		]);
	});

	it("a line previewed while it streams opens or closes no fence: the finished lines render as if never previewed", () => {
		const md = new MarkdownLines(plain, () => 80);
		const shown: string[] = [];
		for (const line of ["```ts", "const a = 1;", "```", "after"]) {
			// As it streams: the marker first, its language and newline later.
			for (let end = 1; end < line.length; end++) md.preview(line.slice(0, end));
			shown.push(md.render(line));
		}
		expect(shown).toEqual(render("```ts\nconst a = 1;\n```\nafter"));
		expect(md.inCode).toBe(false);
	});

	it("a table is drawn in aligned columns once it ends, its alignment kept; pipes in code stay in the cell", () => {
		const md = new MarkdownLines(plain, () => 80);
		const source = [
			"| Name | Port | Notes |",
			"|:-----|-----:|:---:|",
			"| web | 8080 | `a|b` |",
			"| database | 5432 | **main** |",
		];
		for (const line of source) expect(md.push(line)).toEqual([]);
		expect(md.push("after")).toEqual([
			"  Name     │ Port │ Notes",
			"  ─────────┼──────┼──────",
			"  web      │ 8080 │  a|b ",
			"  database │ 5432 │ main ",
			"after",
		]);
		expect(md.end()).toEqual([]);
	});

	it("pipe lines with no delimiter row are ordinary lines", () => {
		const md = new MarkdownLines(plain, () => 80);
		md.push("| not | a table |");
		expect(md.end()).toEqual(["| not | a table |"]);
	});

	it("lists get bullets, quotes a bar", () => {
		expect(render("- one\n  * nested\n1. first\n> quoted")).toEqual([
			"  • one",
			"    • nested",
			"  1. first",
			"│ quoted",
		]);
	});

	it("a fenced block is framed and its lines kept exactly, markdown inside it untouched", () => {
		expect(render("```ts\nconst a = **b**;\n```\nafter")).toEqual(["  ╭─ ts", "  │ const a = **b**;", "  ╰─", "after"]);
	});

	it("code is highlighted with colour: keywords, strings and comments", () => {
		const [, line] = render("```js\nconst s = 'x'; // note\n```", colour);
		expect(line).toContain("\x1b[35mconst\x1b[39m");
		expect(line).toContain("\x1b[32m'x'\x1b[39m");
		expect(line).toContain("\x1b[2m// note\x1b[22m");
		// Only colour was added: the characters are the code's.
		expect(
			line
				?.split("\x1b")
				.map((part) => part.replace(/^\[\d+m/, ""))
				.join(""),
		).toBe("  │ const s = 'x'; // note");
	});
});
