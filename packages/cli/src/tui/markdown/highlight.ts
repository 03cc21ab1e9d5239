import type { Style } from "../../terminal/style.js";

/**
 * A light syntax highlighter for fenced code: comments, strings, numbers and keywords, by one
 * regular expression per language family. It colours; it never changes a character, so what is
 * copied from the terminal is the code the model wrote.
 */

const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
	js: [
		"async",
		"await",
		"break",
		"case",
		"catch",
		"class",
		"const",
		"continue",
		"default",
		"else",
		"export",
		"extends",
		"false",
		"for",
		"from",
		"function",
		"if",
		"import",
		"in",
		"interface",
		"let",
		"new",
		"null",
		"of",
		"return",
		"switch",
		"this",
		"throw",
		"true",
		"try",
		"type",
		"undefined",
		"var",
		"while",
		"yield",
	],
	py: [
		"and",
		"as",
		"async",
		"await",
		"class",
		"def",
		"elif",
		"else",
		"except",
		"False",
		"for",
		"from",
		"if",
		"import",
		"in",
		"is",
		"lambda",
		"None",
		"not",
		"or",
		"pass",
		"raise",
		"return",
		"True",
		"try",
		"while",
		"with",
		"yield",
	],
	sh: ["case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if", "in", "then", "while"],
	generic: ["fn", "func", "let", "mut", "pub", "struct", "impl", "return", "if", "else", "for", "while", "match"],
};

const FAMILY: Readonly<Record<string, keyof typeof KEYWORDS>> = {
	js: "js",
	javascript: "js",
	ts: "js",
	typescript: "js",
	tsx: "js",
	jsx: "js",
	json: "js",
	py: "py",
	python: "py",
	sh: "sh",
	bash: "sh",
	shell: "sh",
	zsh: "sh",
	console: "sh",
};

/** The comment syntax of a family: `#` for Python and shells, `//` elsewhere. */
function commentPattern(family: keyof typeof KEYWORDS): string {
	return family === "py" || family === "sh" ? "#.*$" : "\\/\\/.*$";
}

/** One line of code in `language` (the fence's info word), coloured. */
export function highlightLine(line: string, language: string, style: Style): string {
	if (!style.enabled || language === "" || language === "diff") return highlightDiff(line, language, style);
	const family = FAMILY[language.toLowerCase()] ?? "generic";
	const keywords = (KEYWORDS[family] ?? []).join("|");
	const pattern = new RegExp(
		`(${commentPattern(family)})|("(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'|\`(?:[^\`\\\\]|\\\\.)*\`)|\\b(\\d+(?:\\.\\d+)?)\\b|\\b(${keywords})\\b`,
		"g",
	);
	return line.replace(pattern, (match, comment: string | undefined, string: string | undefined, number?: string) => {
		if (comment !== undefined) return style.dim(match);
		if (string !== undefined) return style.green(match);
		if (number !== undefined) return style.yellow(match);
		return style.magenta(match);
	});
}

function highlightDiff(line: string, language: string, style: Style): string {
	if (language !== "diff") return line;
	if (line.startsWith("+")) return style.green(line);
	if (line.startsWith("-")) return style.red(line);
	if (line.startsWith("@@")) return style.cyan(line);
	return line;
}
