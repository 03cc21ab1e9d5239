import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	defaultModelFromEnv,
	loadProjectConfig,
	ProjectConfigFile,
	resolveEnv,
	resolveMcpServer,
	resolveModel,
} from "./project-config.js";
import { ConfigError } from "./system-config.js";

const dirs: string[] = [];
function configDir(yaml: string): string {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-config-"));
	dirs.push(dir);
	writeFileSync(join(dir, "omniloop.yaml"), yaml);
	return dir;
}
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("omniloop.yaml", () => {
	it("a host's ProjectConfigFile parses it again only when its text changed: an edit of the same size is seen at once", () => {
		const dir = configDir("models:\n  a: { provider: openai, model: m1 }\n");
		const source = new ProjectConfigFile(dir);
		const first = source.load();
		expect(source.load()).toBe(first);
		expect(Object.isFrozen(first.config.models)).toBe(true);
		writeFileSync(join(dir, "omniloop.yaml"), "models:\n  a: { provider: openai, model: m2 }\n");
		expect(source.load().config.models.a?.model).toBe("m2");
		rmSync(join(dir, "omniloop.yaml"));
		expect(source.load()).toEqual({ config: { models: {}, agents: {}, mcp: {} }, file: undefined });
		// Written again once gone, it is not read until the process restarts: a command may have made it.
		writeFileSync(join(dir, "omniloop.yaml"), "models: [not, a, map]\n");
		expect(source.load()).toEqual({ config: { models: {}, agents: {}, mcp: {} }, file: undefined });
		// A broken one the process trusts is an error; the plain read is the caller's own copy every time.
		const other = configDir("models: [not, a, map]\n");
		expect(() => new ProjectConfigFile(other).load()).toThrow(ConfigError);
		writeFileSync(join(other, "omniloop.yaml"), "models:\n  a: { provider: openai, model: m3 }\n");
		const own = loadProjectConfig(other);
		expect(own).not.toBe(loadProjectConfig(other));
		expect(Object.isFrozen(own.config.models)).toBe(false);
	});

	it("reads models and agents", () => {
		const dir = configDir(
			[
				"models:",
				'  smart: { provider: anthropic, model: claude-sonnet-4-5, apiKey: "${ANTHROPIC_API_KEY}" }',
				"agents:",
				"  default_agent: { model: smart, system: You are terse., approval: { shell: ask } }",
			].join("\n"),
		);
		const { config, file } = loadProjectConfig(dir);
		expect(file).toBe(join(dir, "omniloop.yaml"));
		expect(config.agents.default_agent).toMatchObject({
			model: "smart",
			system: "You are terse.",
			approval: { shell: "ask" },
		});
	});

	it("is optional: no file is an empty config", () => {
		const dir = mkdtempSync(join(tmpdir(), "omniloop-config-"));
		dirs.push(dir);
		expect(loadProjectConfig(dir)).toEqual({ config: { models: {}, agents: {}, mcp: {} }, file: undefined });
	});

	it("names the file, the key path and what was expected when a value is wrong", () => {
		const dir = configDir("models:\n  m: { provider: openia, model: x }\n");
		const error = (() => {
			try {
				loadProjectConfig(dir);
			} catch (e) {
				return e as ConfigError;
			}
		})();
		expect(error).toBeInstanceOf(ConfigError);
		expect(error?.file).toBe(join(dir, "omniloop.yaml"));
		expect(error?.keyPath).toBe("models.m.provider");
		expect(error?.message).toMatch(/omniloop\.yaml: models\.m\.provider: /);
	});

	it("refuses an agent whose model is not defined, listing the ones that are", () => {
		const dir = configDir("models:\n  a: { provider: openai, model: x }\nagents:\n  bot: { model: b }\n");
		expect(() => loadProjectConfig(dir)).toThrow(/agents\.bot\.model: "b" is not a model defined under models \(a\)/);
	});

	it("refuses an agent with a description whose id cannot be a tool name (agent__<id>)", () => {
		const yaml = (id: string) =>
			`models:\n  m: { provider: openai, model: x }\nagents:\n  main: { model: m }\n  "${id}": { model: m, description: reviews }\n`;
		expect(() => loadProjectConfig(configDir(yaml("code.review")))).toThrow(
			/omniloop\.yaml: agents\.code\.review: an agent with a description is a tool of the others \(agent__<id>\): its id must be letters, digits, _ or -/,
		);
		expect(() => loadProjectConfig(configDir(yaml("code review")))).toThrow(
			/agents\.code review: an agent with a description/,
		);
		expect(loadProjectConfig(configDir(yaml("code_review-2"))).config.agents["code_review-2"]?.description).toBe(
			"reviews",
		);
		// Alone, no other agent calls it: its id is never a tool name.
		const alone = configDir(
			'models:\n  m: { provider: openai, model: x }\nagents:\n  "code.review": { model: m, description: reviews }\n',
		);
		expect(loadProjectConfig(alone).config.agents["code.review"]?.description).toBe("reviews");
	});

	it("says what a workflow step must be", () => {
		const dir = configDir(
			"models:\n  m: { provider: openai, model: x }\nagents:\n  a: { model: m }\nworkflows:\n  w: { steps: [ { agent: a } ] }\n",
		);
		expect(() => loadProjectConfig(dir)).toThrow(
			/workflows\.w\.steps\.0: a step of agent and prompt \(a Task\), or of approval alone \(a question for a person\), expected/,
		);
	});

	it("refuses YAML that does not parse, naming the file", () => {
		const dir = configDir("models: [unclosed\n");
		expect(() => loadProjectConfig(dir)).toThrow(/omniloop\.yaml: \(top level\): valid YAML expected/);
	});
});

describe("${ENV} references", () => {
	it("are replaced by the variable's value", () => {
		expect(resolveEnv("Bearer ${TOKEN}", { TOKEN: "abc" }, "f.yaml", "k")).toBe("Bearer abc");
	});

	it("to a variable that is not set are an error naming the file, the key and the variable", () => {
		expect(() =>
			resolveModel(
				"smart",
				{ provider: "anthropic", model: "m", apiKey: "${ANTHROPIC_API_KEY}" },
				{},
				"/p/omniloop.yaml",
			),
		).toThrow("/p/omniloop.yaml: models.smart.apiKey: environment variable ANTHROPIC_API_KEY is not set");
	});

	it("that are malformed in a model's credential are an error, not a literal credential; a command's args keep theirs", () => {
		for (const bad of ["${MY-KEY}", "${ VAR }", "${VAR:-default}", "Bearer ${TOKEN", "${}"]) {
			expect(
				() =>
					resolveModel(
						"a",
						{ provider: "openai", model: "m", apiKey: bad },
						{ TOKEN: "t", VAR: "v" },
						"/p/omniloop.yaml",
					),
				bad,
			).toThrow(
				/\/p\/omniloop\.yaml: models\.a\.apiKey: a \$\{NAME\} reference \(letters, digits and _, no spaces or defaults\) expected, not \$\{/,
			);
		}
		expect(() =>
			resolveModel("a", { provider: "openai", model: "m", headers: { "X-Key": "${K EY}" } }, {}, "f"),
		).toThrow(/models\.a\.headers\.X-Key: a \$\{NAME\} reference/);
		// A value read from the environment may hold "${" itself.
		expect(resolveModel("a", { provider: "openai", model: "m", apiKey: "${A}" }, { A: "x${y}" }, "f").apiKey).toBe(
			"x${y}",
		);
		// An MCP server's command line is its own: its shell's ${PORT:-3000} goes through as written.
		expect(resolveMcpServer("s", { command: "sh", args: ["-c", "serve --port ${PORT:-3000}"] }, {}, "f").args).toEqual([
			"-c",
			"serve --port ${PORT:-3000}",
		]);
	});

	it("may make a model's baseURL: it is checked as a URL once the variables are read", () => {
		const dir = configDir(
			'models:\n  local: { provider: openai-compatible, model: m, baseURL: "${LLM_URL}/v1" }\nagents:\n  a: { model: local }\n',
		);
		const { config, file } = loadProjectConfig(dir);
		const model = config.models.local as Parameters<typeof resolveModel>[1];
		expect(resolveModel("local", model, { LLM_URL: "http://127.0.0.1:8080" }, file as string).baseURL).toBe(
			"http://127.0.0.1:8080/v1",
		);
		expect(() => resolveModel("local", model, { LLM_URL: "not a url" }, file as string)).toThrow(
			`${file}: models.local.baseURL: \${LLM_URL}/v1 does not give a URL once its variables are read`,
		);
		expect(() => loadProjectConfig(configDir("models:\n  x: { provider: openai, model: m, baseURL: nope }\n"))).toThrow(
			/models\.x\.baseURL: Invalid URL/,
		);
	});
});

describe("the default model with no config file", () => {
	it("comes from ANTHROPIC_API_KEY or OPENAI_API_KEY, and is undefined with neither", () => {
		expect(defaultModelFromEnv({ ANTHROPIC_API_KEY: "a" })?.model.provider).toBe("anthropic");
		expect(defaultModelFromEnv({ OPENAI_API_KEY: "o" })?.model).toMatchObject({
			provider: "openai",
			apiKey: "${OPENAI_API_KEY}",
		});
		expect(defaultModelFromEnv({})).toBeUndefined();
	});

	it("an MCP server's ${NAME}s are read in its args as in its env; an unset one names its place", () => {
		const server = { command: "gh-mcp", args: ["--token=${GH}", "--plain"], env: { A: "${GH}" } };
		expect(resolveMcpServer("github", server, { GH: "t0k3n" }, "omniloop.yaml")).toEqual({
			command: "gh-mcp",
			args: ["--token=t0k3n", "--plain"],
			env: { A: "t0k3n" },
		});
		expect(() => resolveMcpServer("github", server, {}, "omniloop.yaml")).toThrow(/mcp\.github\.args\.0/);
	});
});
