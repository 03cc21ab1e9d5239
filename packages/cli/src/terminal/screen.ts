import { createStyle, type Style, wantsColor } from "./style.js";

/** A stream we write text to, with what we need to know of it. */
export interface OutputStream {
	write(text: string): boolean;
	readonly isTTY?: boolean;
	readonly columns?: number;
}

/**
 * Text written to one stream, tracking whether the cursor is at the start of a line: streamed model
 * text stops mid-line, and whatever follows it (a tool line, a notice) must start on a line of its own.
 */
export class TextSink {
	readonly style: Style;
	private atLineStart = true;

	constructor(
		private readonly stream: OutputStream,
		env: NodeJS.ProcessEnv,
	) {
		this.style = createStyle(wantsColor(stream, env));
	}

	get isTTY(): boolean {
		return this.stream.isTTY === true;
	}

	/** The terminal's width, or a sensible width for a pipe. */
	get columns(): number {
		return this.stream.columns !== undefined && this.stream.columns > 20 ? this.stream.columns : 100;
	}

	/** The terminal's width when the stream says it; undefined otherwise. */
	get knownColumns(): number | undefined {
		const { columns } = this.stream;
		return columns !== undefined && columns > 0 ? columns : undefined;
	}

	write(text: string): void {
		if (text === "") return;
		this.stream.write(text);
		this.atLineStart = text.endsWith("\n");
	}

	/** Writes `text` as whole line(s), starting a new line first if the cursor is mid-line. */
	line(text = ""): void {
		this.ensureNewline();
		this.write(`${text}\n`);
	}

	ensureNewline(): void {
		if (!this.atLineStart) this.write("\n");
	}

	/** Replaces the current line (a live countdown); only meaningful on a terminal. */
	rewrite(text: string): void {
		this.write(`\r\x1b[K${text}`);
	}
}

/**
 * Where the CLI writes. `out` is stdout: the conversation (human mode) or one JSON message a line
 * (--json). `err` is stderr: prompts and notices. `info` is for a command's human-readable output
 * (tables, /usage): stdout, except in --json mode, where stdout holds nothing but messages.
 */
export class Screen {
	readonly out: TextSink;
	readonly err: TextSink;

	constructor(
		stdout: OutputStream,
		stderr: OutputStream,
		env: NodeJS.ProcessEnv,
		readonly json: boolean,
	) {
		this.out = new TextSink(stdout, env);
		this.err = new TextSink(stderr, env);
	}

	get info(): TextSink {
		return this.json ? this.err : this.out;
	}

	/** A notice on stderr; in human mode the conversation's line is ended first, since both share a terminal. */
	notice(text: string): void {
		if (!this.json) this.out.ensureNewline();
		this.err.line(text);
	}

	warn(text: string): void {
		this.notice(this.err.style.yellow(text));
	}

	error(text: string): void {
		this.notice(this.err.style.red(text));
	}
}
