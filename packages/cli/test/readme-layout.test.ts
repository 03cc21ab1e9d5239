import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** README's layout text: from "Layout:" to the end of its section. */
function layoutText(): string {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const start = readme.indexOf("\nLayout: ");
	if (start < 0) throw new Error('README.md has no "Layout:" paragraph under ## Working on omniloop');
	const end = readme.indexOf("\n## ", start);
	return readme.slice(start, end < 0 ? undefined : end);
}

/** The part of the layout text about `packages/<name>/src/`: up to the next package's, or its paragraph's end. */
function packageLayout(text: string, name: string): string | undefined {
	const start = text.indexOf(`\`packages/${name}/src/\``);
	if (start < 0) return undefined;
	const ends = [text.indexOf("`packages/", start + 1), text.indexOf("\n\n", start)].filter((i) => i >= 0);
	return text.slice(start, ends.length === 0 ? undefined : Math.min(...ends));
}

const folders = (dir: string) =>
	readdirSync(dir, { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.map((entry) => entry.name);

/** Every folder under `dir`, at any depth (README names a concept's inner folders too). */
function foldersBelow(dir: string): Set<string> {
	const found = new Set<string>();
	for (const name of folders(dir)) {
		found.add(name);
		for (const inner of foldersBelow(join(dir, name))) found.add(inner);
	}
	return found;
}

const packages = folders(join(ROOT, "packages")).filter((name) => existsSync(join(ROOT, "packages", name, "src")));

describe("the README's layout", () => {
	it("names every package's source folder, and every folder in its src/", () => {
		const text = layoutText();
		const missing = packages.flatMap((name) => {
			const part = packageLayout(text, name);
			if (part === undefined) return [`packages/${name}/src/`];
			return folders(join(ROOT, "packages", name, "src"))
				.filter((folder) => !part.includes(`\`${folder}/\``))
				.map((folder) => `packages/${name}/src/${folder}/`);
		});
		expect(missing).toEqual([]);
	});

	it("names no folder a package does not have", () => {
		const text = layoutText();
		const gone = packages.flatMap((name) => {
			const part = packageLayout(text, name) ?? "";
			const real = foldersBelow(join(ROOT, "packages", name, "src"));
			return [...part.matchAll(/`([\w-]+)\/`/g)]
				.map((match) => match[1] as string)
				.filter((folder) => !real.has(folder))
				.map((folder) => `packages/${name}/src/…/${folder}/`);
		});
		expect(gone).toEqual([]);
	});
});
