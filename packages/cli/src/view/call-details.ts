import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { argumentsObject } from "@omniloop/client";
import type { ToolCall } from "@omniloop/core";
import type { Style } from "../terminal/style.js";
import { type DiffLine, lineDiff } from "./diff.js";
import { showInvisible } from "./visible-text.js";

/**
 * What a call asking for approval will do, as lines for a person to judge: the diff an
 * `edit_file` makes, the content of a `write_file` (or its diff against the file it replaces),
 * the whole command of a `shell`, and the arguments of anything else. Control and bidi characters
 * are shown escaped (see showInvisible): what a person approves is what runs, as it is written.
 */
export function callDetails(call: ToolCall, workspaceDir: string, style: Style): string[] {
	return rawDetails(call, workspaceDir, visibleStyle(style));
}

function rawDetails(call: ToolCall, workspaceDir: string, style: Style): string[] {
	const args = argumentsObject(call.arguments);
	if (args === undefined) return call.arguments.split("\n").map(showInvisible);
	const str = (key: string): string | undefined => (typeof args[key] === "string" ? (args[key] as string) : undefined);
	switch (call.name) {
		case "shell": {
			const command = str("command");
			if (command === undefined) break;
			const lines = command.split("\n").map((line, i) => `${i === 0 ? style.bold("$") : " "} ${showInvisible(line)}`);
			const cwd = str("cwd") ?? str("workdir");
			return cwd === undefined ? lines : [...lines, style.dim(`in ${cwd}`)];
		}
		case "edit_file": {
			const path = str("path");
			const before = str("old_string");
			const after = str("new_string");
			if (path === undefined || before === undefined || after === undefined) break;
			return [
				style.bold(path),
				...editDiff(readInside(workspaceDir, path), before, after, args.replace_all === true, style),
			];
		}
		case "write_file": {
			const path = str("path");
			const content = str("content");
			if (path === undefined || content === undefined) break;
			const existing = readInside(workspaceDir, path);
			if (existing === undefined) {
				return [
					`${style.bold(path)} ${style.dim("(new file)")}`,
					...splitContent(content).map((l) => style.green(`+ ${l}`)),
				];
			}
			if (existing === content) return [`${style.bold(path)} ${style.dim("(unchanged: same content)")}`];
			return [
				`${style.bold(path)} ${style.dim("(replaces the file)")}`,
				...renderDiff(lineDiff(existing, content), style),
			];
		}
	}
	return Object.entries(args).flatMap(([key, value]) => {
		const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
		const [first = "", ...rest] = text.split("\n");
		return [`${style.dim(`${key}:`)} ${showInvisible(first)}`, ...rest.map((line) => `  ${showInvisible(line)}`)];
	});
}

/**
 * The style with every piece of text it wraps escaped first (paths, diff lines, contents): the
 * model's text reaches the terminal only through it, and its own colour codes stay intact.
 */
function visibleStyle(style: Style): Style {
	const escaped = (paint: (text: string) => string) => (text: string) => paint(showInvisible(text));
	return {
		enabled: style.enabled,
		dim: escaped(style.dim),
		bold: escaped(style.bold),
		red: escaped(style.red),
		yellow: escaped(style.yellow),
		green: escaped(style.green),
		cyan: escaped(style.cyan),
		magenta: escaped(style.magenta),
		italic: escaped(style.italic),
		underline: escaped(style.underline),
		inverse: escaped(style.inverse),
	};
}

/** The edit applied to the file as it is now; without the file (or the text in it), old → new. */
function editDiff(file: string | undefined, before: string, after: string, all: boolean, style: Style): string[] {
	if (file?.includes(before)) {
		const edited = all ? file.split(before).join(after) : file.replace(before, () => after);
		return renderDiff(lineDiff(file, edited), style);
	}
	const note = file === undefined ? "(the file cannot be read)" : "(old_string is not in the file as it is now)";
	return [style.dim(note), ...renderDiff(lineDiff(before, after, Number.POSITIVE_INFINITY), style)];
}

export function renderDiff(lines: readonly DiffLine[], style: Style): string[] {
	return lines.map((line): string => {
		switch (line.kind) {
			case "@":
				return style.cyan(`@@ -${line.oldStart} +${line.newStart} @@`);
			case "…":
				return style.dim(`  … ${line.hidden} unchanged line${line.hidden === 1 ? "" : "s"}`);
			case "-":
				return style.red(`- ${line.text}`);
			case "+":
				return style.green(`+ ${line.text}`);
			default:
				return style.dim(`  ${line.text}`);
		}
	});
}

function splitContent(content: string): string[] {
	return content === "" ? [] : content.replace(/\n$/, "").split("\n");
}

/** A file of the workspace, for showing only: a path leading out of it is not read. */
function readInside(workspaceDir: string, path: string): string | undefined {
	const target = resolve(workspaceDir, path);
	const rel = relative(workspaceDir, target);
	if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
	try {
		return readFileSync(target, "utf8");
	} catch {
		return undefined;
	}
}
