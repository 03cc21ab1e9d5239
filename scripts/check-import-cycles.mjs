#!/usr/bin/env node
// Fails when the packages' sources import each other in a circle, type-only imports included: a
// circle means two files are one idea, or a contract sits on the wrong side. Run by `npm run lint`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = /\.(ts|tsx)$/;
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^"'`;]*?\s+from\s+)?["']([^"']+)["']/g;

function sources(dir) {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sources(path);
		return SOURCE.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
	});
}

/** The file a relative specifier names: `./x.js` is `./x.ts` or `./x.tsx` (or `./x/index.ts`). */
function target(from, specifier, known) {
	if (!specifier.startsWith(".")) return undefined;
	const base = resolve(dirname(from), specifier).replace(/\.(js|jsx|mjs)$/, "");
	for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
		if (known.has(candidate)) return candidate;
	}
	return undefined;
}

const files = readdirSync(join(root, "packages")).flatMap((pkg) => {
	const src = join(root, "packages", pkg, "src");
	try {
		return sources(src);
	} catch {
		return [];
	}
});
const known = new Set(files);
const edges = new Map(
	files.map((file) => {
		const text = readFileSync(file, "utf8");
		const to = [...text.matchAll(IMPORT)].map((m) => target(file, m[1], known)).filter(Boolean);
		return [file, [...new Set(to)]];
	}),
);

// Tarjan's strongly connected components: every component of more than one file is a circle.
let index = 0;
const stack = [];
const onStack = new Set();
const indices = new Map();
const lows = new Map();
const circles = [];
function visit(file) {
	indices.set(file, index);
	lows.set(file, index);
	index++;
	stack.push(file);
	onStack.add(file);
	for (const next of edges.get(file) ?? []) {
		if (!indices.has(next)) {
			visit(next);
			lows.set(file, Math.min(lows.get(file), lows.get(next)));
		} else if (onStack.has(next)) lows.set(file, Math.min(lows.get(file), indices.get(next)));
	}
	if (lows.get(file) === indices.get(file)) {
		const component = [];
		let member;
		do {
			member = stack.pop();
			onStack.delete(member);
			component.push(member);
		} while (member !== file);
		if (component.length > 1) circles.push(component);
	}
}
for (const file of files) if (!indices.has(file)) visit(file);

if (circles.length > 0) {
	console.error(`import circles (${circles.length}): files that import each other, type-only imports included`);
	for (const circle of circles)
		console.error(
			`- ${circle
				.map((f) => relative(root, f))
				.sort()
				.join("\n  ")}`,
		);
	process.exit(1);
}
console.log(`no import circles in ${files.length} files`);
