import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const core = join(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path: string) => readFileSync(join(core, path), "utf8");

interface Exported {
	name: string;
	kind: "type" | "value";
	/** The file it is taken from, relative to src/. */
	from: string;
}

/** The names an entry exports, each from its `export { … } from "./…"` statement; anything else is a problem. */
function entryExports(entry: string): { names: Exported[]; problems: string[] } {
	const code = read(`src/${entry}`).replace(/^\/\/.*$/gm, "");
	const names: Exported[] = [];
	const rest = code.replace(
		/export\s+(type\s+)?\{([^}]*)\}\s*from\s*"\.\/([^"]+)\.js";/g,
		(_, allTypes, list, from) => {
			for (const item of (list as string).split(",").map((n) => n.trim())) {
				if (item === "") continue;
				const type = allTypes !== undefined || item.startsWith("type ");
				names.push({ name: item.replace(/^type\s+/, ""), kind: type ? "type" : "value", from: `${from}.ts` });
			}
			return "";
		},
	);
	const problems = rest.trim() === "" ? [] : [`${entry} holds more than named re-exports: ${rest.trim().slice(0, 80)}`];
	return { names, problems };
}

/** The names docs/api.md lists: the first column of its tables, with their kind. */
function documented(): { name: string; kind: string }[] {
	return [...read("../../docs/api.md").matchAll(/^\| `([A-Za-z_$][\w$]*)` \| (type|value) \|/gm)].map(
		([, name, kind]) => ({
			name: name as string,
			kind: kind as string,
		}),
	);
}

/** Whether the declaration of `name` in `file` has a doc comment just above it. */
function hasDocComment(file: string, name: string): boolean {
	const code = read(`src/${file}`);
	const declaration = new RegExp(
		`^export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:function\\*?|class|interface|type|const|let|enum)\\s+${name}\\b`,
		"m",
	).exec(code);
	return declaration !== null && code.slice(0, declaration.index).trimEnd().endsWith("*/");
}

const main = entryExports("index.ts");
const internal = entryExports("internal.ts");
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

describe("the public API of @omniloop/core", () => {
	it("is named exports only: no `export *`, nothing defined in the entries", () => {
		expect([...main.problems, ...internal.problems]).toEqual([]);
		expect(main.names.length).toBeGreaterThan(0);
	});

	it("exports exactly the names docs/api.md lists, each of the kind it says", () => {
		const exported = main.names.map(({ name, kind }) => ({ name, kind })).sort(byName);
		expect(exported).toEqual(documented().sort(byName));
	});

	it("gives at run time exactly the values listed (a type is no value)", async () => {
		const loaded = Object.keys(await import("../src/index.js")).sort();
		const values = documented()
			.filter((d) => d.kind === "value")
			.map((d) => d.name)
			.sort();
		expect(loaded).toEqual(values);
	});

	it("documents each name at its declaration", () => {
		const undocumented = main.names.filter((e) => !hasDocComment(e.from, e.name)).map((e) => `${e.from}: ${e.name}`);
		expect(undocumented).toEqual([]);
	});

	it("keeps the names the design pins (README's example, the Session's methods' types)", () => {
		const names = new Set(main.names.map((e) => e.name));
		const pinned = [
			"createAgent",
			"tool",
			"userText",
			"Agent",
			"AgentOptions",
			"Session",
			"RunOptions",
			"Compactability",
		];
		const types = ["OmniMessage", "ModelMessage", "ToolCall", "ToolCallOutput", "Done", "DoneReason", "Usage"];
		const models = ["ModelAdapter", "ApproveFn", "Tool", "ToolContext", "ThinkingLevel", "SessionStore"];
		expect([...pinned, ...types, ...models].filter((n) => !names.has(n))).toEqual([]);
	});

	it("keeps the hosts' internals apart: @omniloop/core/internal repeats no public name", () => {
		const names = new Set(main.names.map((e) => e.name));
		expect(internal.names.filter((e) => names.has(e.name)).map((e) => e.name)).toEqual([]);
	});
});
