import { describe, expect, it } from "vitest";
import { createStyle } from "../terminal/style.js";
import { StatusLine } from "./status-line.js";
import type { TerminalUi } from "./terminal-ui.js";

/** A terminal this many columns wide that keeps what the status line renders. */
function narrow(columns: number) {
	let render: (() => string | undefined) | undefined;
	const ui = { columns, setStatus: (next: typeof render) => (render = next) } as unknown as TerminalUi;
	return { ui, shown: () => render?.() };
}

describe("the status line", () => {
	it("a running tool's label cut to fit ends with one ellipsis, not two", () => {
		const { ui, shown } = narrow(40);
		const line = new StatusLine(ui, createStyle(false));
		line.toolStarted("c1", "shell echo a long command that does not fit");
		expect(shown()).toMatch(/^\S running shell ech[^…]*… 0 s$/);
		const wide = narrow(80);
		const uncut = new StatusLine(wide.ui, createStyle(false));
		uncut.toolStarted("c2", "read_file a.txt");
		expect(wide.shown()).toMatch(/^\S running read_file a\.txt… 0 s$/);
	});
});
