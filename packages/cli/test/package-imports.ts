import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { parseAst } from "rolldown/parseAst";

/** One module a shipped file loads at run time, as written in it. */
export interface RuntimeImport {
	readonly file: string;
	readonly specifier: string;
}

type Node = { type?: string; [key: string]: unknown };

function literal(node: unknown): string | undefined {
	const value = (node as Node | undefined)?.value;
	return (node as Node | undefined)?.type === "Literal" && typeof value === "string" ? value : undefined;
}

/** `require("x")`, and the `__require("x")` a bundler writes for a CommonJS module's require. */
function requireOf(node: Node): string | undefined {
	const callee = node.callee as Node | undefined;
	if (callee?.type !== "Identifier" || (callee.name !== "require" && callee.name !== "__require")) return undefined;
	return literal((node.arguments as unknown[])[0]);
}

/**
 * Every module specifier `code` loads: static imports and re-exports, `import()` and `require()`
 * with a literal name. Read from the syntax tree, so a name in a comment or a string is not one.
 * An `import()` of a computed name cannot be checked: it is returned as `<computed>`.
 */
export function specifiersOf(code: string, file: string): string[] {
	const found: string[] = [];
	const visit = (node: unknown): void => {
		if (Array.isArray(node)) {
			for (const child of node) visit(child);
			return;
		}
		if (node === null || typeof node !== "object") return;
		const n = node as Node;
		if (n.type === "ImportDeclaration" || n.type === "ExportAllDeclaration" || n.type === "ExportNamedDeclaration") {
			const source = literal(n.source);
			if (source !== undefined) found.push(source);
		} else if (n.type === "ImportExpression") {
			found.push(literal(n.source) ?? "<computed>");
		} else if (n.type === "CallExpression") {
			const required = requireOf(n);
			if (required !== undefined) found.push(required);
		}
		for (const [key, child] of Object.entries(n)) if (key !== "type") visit(child);
	};
	visit(parseAst(code, { sourceType: "module" }, file));
	return found;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier: string): string {
	const parts = specifier.split("/");
	return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** The files of `packageDir` npm would pack (`files` of its package.json), as paths inside it. */
export interface PackedPackage {
	readonly dir: string;
	readonly name: string;
	readonly files: readonly string[];
}

/**
 * What the packed package loads at run time that it does not provide: a bare specifier that is
 * neither a Node builtin, nor the package itself, nor a dependency, optional dependency or peer
 * dependency in its package.json. Relative imports stay inside the package and are not listed.
 */
export function undeclaredImports(pack: PackedPackage): RuntimeImport[] {
	const manifest = JSON.parse(readFileSync(join(pack.dir, "package.json"), "utf8")) as Record<string, unknown>;
	const declared = new Set<string>([pack.name]);
	for (const field of ["dependencies", "optionalDependencies", "peerDependencies"])
		for (const name of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) declared.add(name);
	const missing: RuntimeImport[] = [];
	// The server's web/ is the web app, Vite's bundle for the browser: Node loads none of it.
	for (const file of pack.files.filter((path) => /\.[cm]?js$/.test(path) && !path.startsWith("web/"))) {
		for (const specifier of specifiersOf(readFileSync(join(pack.dir, file), "utf8"), file)) {
			if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) continue;
			if (!declared.has(packageName(specifier))) missing.push({ file, specifier });
		}
	}
	return missing;
}
