import { argumentsObject } from "@omniloop/client";
import { type DiffLine, diffLines } from "../files/diff-lines.js";

/** What a tool call's arguments say, shaped for showing: a file change as a diff, a command as text. */
export type ArgumentsView =
	| { kind: "diff"; path: string; lines: DiffLine[]; note?: string }
	| { kind: "command"; command: string }
	| { kind: "json"; text: string };

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export function viewArguments(name: string, json: string): ArgumentsView {
	const args = argumentsObject(json);
	if (args === undefined) return { kind: "json", text: json };
	const path = str(args.path);
	if (name === "write_file" && path !== undefined && str(args.content) !== undefined) {
		return { kind: "diff", path, lines: diffLines("", str(args.content) ?? ""), note: "the whole new content" };
	}
	if (name === "edit_file" && path !== undefined && str(args.old_string) !== undefined) {
		return {
			kind: "diff",
			path,
			lines: diffLines(str(args.old_string) ?? "", str(args.new_string) ?? ""),
			...(args.replace_all === true ? { note: "every occurrence" } : {}),
		};
	}
	const command = str(args.command);
	if (name === "shell" && command !== undefined) return { kind: "command", command };
	return { kind: "json", text: JSON.stringify(args, null, 2) };
}

/** What a folded tool card names beside the tool: the path, command, pattern or URL it works on. */
export function targetOf(json: string): string | undefined {
	const args = argumentsObject(json);
	if (args === undefined) return undefined;
	for (const key of ["path", "command", "pattern", "url", "query", "file_path"]) {
		const value = str(args[key]);
		if (value !== undefined && value !== "") {
			const line = value.split("\n", 1)[0] ?? "";
			return line.length > 80 || line !== value ? `${line.slice(0, 80)}…` : line;
		}
	}
	return undefined;
}
