/**
 * How a tool call and its output look on one screen: a call is one line with the argument that
 * says what it does (`→ read_file src/a.ts`, `→ shell npm test`), an output a few lines.
 */

import { argumentsObject } from "@omniloop/client";
import { showInvisible } from "./visible-text.js";

const MAX_SUMMARY_CHARS = 80;

/** The argument that identifies a built-in tool's call, in the order we look for it. */
const KEY_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
	read_file: ["path"],
	write_file: ["path"],
	edit_file: ["path"],
	list_dir: ["path"],
	glob: ["pattern", "path"],
	grep: ["pattern", "path"],
	shell: ["command"],
};

/** A short, one-line summary of a call's arguments (JSON text as the model wrote it). */
export function summarizeArguments(name: string, argumentsJson: string): string {
	const args = argumentsObject(argumentsJson);
	if (args === undefined) return shorten(oneLine(argumentsJson));
	const keys = KEY_ARGUMENTS[name];
	if (keys !== undefined) {
		const parts = keys.flatMap((key) => (typeof args[key] === "string" ? [args[key] as string] : []));
		if (parts.length > 0) return shorten(oneLine(parts.join(" in ")));
		if (name === "list_dir") return ".";
	}
	// A subagent's call (agent__<id>) is its task.
	if (typeof args.task === "string") return shorten(oneLine(args.task));
	const pairs = Object.entries(args).map(
		([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`,
	);
	return shorten(oneLine(pairs.join(" ")));
}

/** One line, its controls and bidi characters escaped (a summary is what a person reads the call as). */
function oneLine(text: string): string {
	return showInvisible(text.replace(/\s*\n\s*/g, " ⏎ ").trim());
}

export function shorten(text: string, max = MAX_SUMMARY_CHARS): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * An output trimmed to `maxLines` of its lines: the first few and the last ones (where a command
 * says how it ended: its last results, the exit code, a note that more was saved), with the count
 * of the lines left out between. Hiding a single line would take a line too: then all are shown.
 */
export function trimOutput(output: string, maxLines: number, maxWidth: number): string[] {
	const lines = output.replace(/\n+$/, "").split("\n");
	const cut = (line: string) => shorten(line.replace(/\t/g, "  "), maxWidth);
	if (lines.length <= maxLines + 1) return lines.map(cut);
	const head = Math.floor(maxLines / 2);
	const tail = maxLines - head;
	const hidden = lines.length - head - tail;
	return [
		...lines.slice(0, head).map(cut),
		`… ${hidden} more line${hidden === 1 ? "" : "s"}`,
		...lines.slice(-tail).map(cut),
	];
}
