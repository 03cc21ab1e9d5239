import { closeSync, constants, lstatSync, openSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { SANDBOX_MODES } from "../tools/sandbox/sandbox-mode.js";
import { VARIABLE_PATTERN } from "../tools/sandbox/shell-environment.js";
import { ConfigError } from "./system-config.js";
import { yamlParser } from "./yaml.js";

/** The project config file's name, read from `createAgent`'s `configDir`. */
export const PROJECT_CONFIG_FILE = "omniloop.yaml";

const providerKind = z.enum(["openai", "openai-chat", "openai-compatible", "anthropic", "google"]);

const modelSchema = z
	.object({
		provider: providerKind,
		model: z.string().min(1),
		/** Usually a `${ENV_VAR}` reference, resolved when a Session loads. */
		apiKey: z.string().optional(),
		/** A URL, or one made of `${ENV_VAR}` references (checked once they are resolved). */
		baseURL: z
			.string()
			.refine((value) => value.includes("${") || URL.canParse(value), { message: "Invalid URL" })
			.optional(),
		headers: z.record(z.string(), z.string()).optional(),
		maxOutputTokens: z.number().int().positive().optional(),
		/** USD per million tokens, for the server's usage costs; `input` is charged on the uncached part. */
		price: z
			.object({
				input: z.number().nonnegative(),
				output: z.number().nonnegative(),
				cacheRead: z.number().nonnegative().optional(),
				cacheWrite: z.number().nonnegative().optional(),
			})
			.strict()
			.optional(),
	})
	.strict();

const mcpServerSchema = z
	.object({
		command: z.string().min(1),
		args: z.array(z.string()).optional(),
		/** Values may be `${ENV_VAR}` references, resolved when a Session loads. */
		env: z.record(z.string(), z.string()).optional(),
		cwd: z.string().optional(),
		/** The server's read-only hints count for approvals (McpServerConfig.trustReadOnlyHints). */
		trustReadOnlyHints: z.boolean().optional(),
	})
	.strict();

const variablePattern = z
	.string()
	.regex(VARIABLE_PATTERN, "an environment variable name, or a pattern with * (e.g. GITHUB_TOKEN, AWS_*), expected");

const allowedHost = z
	.string()
	.regex(
		/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/,
		"a host name, or *.domain for its subdomains, with :port for a port other than 80 and 443 (e.g. registry.npmjs.org, *.github.com, localhost:3000), expected",
	)
	.refine((entry) => {
		const port = /:(\d+)$/.exec(entry)?.[1];
		return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
	}, "a port from 1 to 65535 expected");

/** What of the host's environment the shell's commands see (docs/sandbox.md). */
const shellSchema = z
	.object({
		env: z
			.object({
				/** Let through although they look like secrets. */
				include: z.array(variablePattern).optional(),
				/** Kept out besides the secrets. */
				exclude: z.array(variablePattern).optional(),
			})
			.strict()
			.optional(),
	})
	.strict();

const agentSchema = z
	.object({
		model: z.string().min(1),
		/** What the agent is for: an agent with a description can be called by others as a subagent. */
		description: z.string().optional(),
		system: z.string().optional(),
		tools: z.array(z.string()).optional(),
		approval: z.record(z.string(), z.enum(["allow", "ask", "deny"])).optional(),
		/** Server workflows: an undecided approval of this agent's calls becomes a deny after this long. */
		approvalTimeoutMs: z.number().int().positive().optional(),
		/** The OS sandbox of the shell's commands; default workspace-write (docs/sandbox.md). */
		sandbox: z.enum(SANDBOX_MODES).optional(),
		/** Hosts sandboxed commands may reach (HTTP and HTTPS, through a proxy); none by default. */
		network: z.array(allowedHost).optional(),
		shell: shellSchema.optional(),
	})
	.strict();

/** A named workflow's step: a Task of an agent (a prompt template), or a gate with a question for a person. */
const workflowStepSchema = z.union(
	[
		z.object({ agent: z.string().min(1), prompt: z.string().min(1) }).strict(),
		z.object({ approval: z.string().min(1) }).strict(),
	],
	{ error: "a step of agent and prompt (a Task), or of approval alone (a question for a person), expected" },
);

/** A named workflow (the server runs it): ordered steps in one Session. */
const workflowSchema = z
	.object({
		/** An undecided approval (a tool call or a gate) becomes a deny after this long. */
		approvalTimeoutMs: z.number().int().positive().optional(),
		steps: z.array(workflowStepSchema).min(1),
	})
	.strict();

/** `omniloop.yaml`: models, credentials (as `${ENV}` references) and agents. */
export const projectConfigSchema = z
	.object({
		models: z.record(z.string(), modelSchema).default({}),
		agents: z.record(z.string(), agentSchema).default({}),
		/** MCP servers over stdio; their tools appear as `<name>__<tool>`. */
		mcp: z.record(z.string(), mcpServerSchema).default({}),
		/** Named workflows for the Runtime Server (`POST /workflows { workflow, input }`). */
		workflows: z.record(z.string(), workflowSchema).optional(),
		/** Project instructions (AGENTS.md files): see docs/project-instructions.md. */
		instructions: z
			.object({
				maxBytes: z
					.number()
					.int()
					.positive()
					.default(32 * 1024),
			})
			.strict()
			.optional(),
		/** Checkpoints of the workspace before a turn's first change: see docs/checkpoints.md. */
		checkpoints: z
			.object({
				enabled: z.boolean().default(true),
				/** A file bigger than this is left out of a checkpoint (with a note). */
				maxFileBytes: z
					.number()
					.int()
					.positive()
					.default(4 * 1024 * 1024),
			})
			.strict()
			.optional(),
	})
	.strict();

/** The whole of `omniloop.yaml`, parsed and checked. */
export type ProjectConfig = z.output<typeof projectConfigSchema>;
/** A named model as `omniloop.yaml` defines it under `models:` (provider, model id, credentials). */
export type ModelConfig = z.output<typeof modelSchema>;
/** An agent as `omniloop.yaml` defines it under `agents:` (its model, system prompt, tools, approvals). */
export type AgentConfig = z.output<typeof agentSchema>;
/** An MCP server as `omniloop.yaml` defines it under `mcp:`, before `${VAR}`s are resolved. */
export type McpServerEntry = z.output<typeof mcpServerSchema>;
/** A workflow as `omniloop.yaml` defines it under `workflows:`: its ordered steps, in one Session. */
export type WorkflowConfig = z.output<typeof workflowSchema>;
/** One step of a workflow: a Task (an agent and its prompt), or an approval gate a person passes. */
export type WorkflowStepConfig = z.output<typeof workflowStepSchema>;

/** A project config and the file it came from (none: the defaults). */
export interface LoadedProjectConfig {
	config: ProjectConfig;
	/** The file it came from, for error messages; undefined when there is none. */
	file: string | undefined;
}

/** Reads `omniloop.yaml` from `dir`; no file is an empty config. Errors name the file and key. */
export function loadProjectConfig(dir: string): LoadedProjectConfig {
	const file = join(dir, PROJECT_CONFIG_FILE);
	const text = readConfigText(file);
	return text === undefined
		? { config: { models: {}, agents: {}, mcp: {} }, file: undefined }
		: parseProjectConfig(file, text);
}

/**
 * One project's `omniloop.yaml` for a host that reads it per request (a server's agents, usage
 * prices, named workflows, credentials): a file whose text is what it was at the last `load` is
 * not parsed again (reading a small file is cheap; the YAML and the schema are not). A text
 * compare, not timestamps, which can miss an edit made within one tick of the file system's
 * clock. What `load` returns is shared and frozen.
 */
export class ProjectConfigFile {
	private last: { text: string | undefined; project: Readonly<LoadedProjectConfig> } | undefined;

	constructor(readonly dir: string) {}

	load(): Readonly<LoadedProjectConfig> {
		const file = join(this.dir, PROJECT_CONFIG_FILE);
		const text = readConfigText(file);
		if (this.last !== undefined && this.last.text === text) return this.last.project;
		const project = deepFreeze(
			text === undefined
				? { config: { models: {}, agents: {}, mcp: {} }, file: undefined }
				: parseProjectConfig(file, text),
		);
		this.last = { text, project };
		return project;
	}
}

/**
 * What this process first saw at each config file's path: a file, a link (where it led), or none.
 * No tool and no sandboxed command can change an `omniloop.yaml` that exists (docs/sandbox.md),
 * but nothing can stop a command from creating one where there is none, or from replacing a link
 * it cannot write through with another — and the file chooses the next Session's MCP commands,
 * models and approvals. So a file that was not there when the process first looked is not read
 * until the process restarts; nor is one that has gone since, a link since replaced by a file, or
 * a link that leads elsewhere than it did (another target, or one its folders now resolve to).
 */
const firstSeen = new Map<string, ConfigEntry>();

type ConfigEntry = { kind: "none" } | { kind: "file"; real: string } | { kind: "link"; target: string; real: string };

/** The file's text; undefined when there is none, or when it may not be trusted (see firstSeen). */
function readConfigText(file: string): string | undefined {
	const path = resolve(file);
	const now = entryAt(path);
	const first = firstSeen.get(path);
	if (first === undefined) firstSeen.set(path, now);
	else if (first.kind === "none" || !sameEntry(first, now)) {
		firstSeen.set(path, { kind: "none" });
		return undefined;
	}
	if (now.kind === "none") return undefined;
	return readThrough(path, now.real);
}

/**
 * The text of the file at `path`, read through a descriptor whose real path is `real`: a command
 * swapping the link back and forth could otherwise pass the check above with the trusted target
 * and have its own file read by name a moment later. Undefined when it leads elsewhere by then.
 */
function readThrough(path: string, real: string): string | undefined {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
	try {
		const opened = descriptorPath(fd);
		if (opened !== undefined && opened !== real) {
			firstSeen.set(path, { kind: "none" });
			return undefined;
		}
		return readFileSync(fd, "utf8");
	} finally {
		closeSync(fd);
	}
}

/** Where an open descriptor leads (Linux's /proc); undefined where /proc is missing. */
function descriptorPath(fd: number): string | undefined {
	try {
		return readlinkSync(`/proc/self/fd/${fd}`);
	} catch {
		return undefined;
	}
}

function entryAt(path: string): ConfigEntry {
	try {
		const real = realpathSync(path);
		if (!lstatSync(path).isSymbolicLink()) return { kind: "file", real };
		return { kind: "link", target: readlinkSync(path), real };
	} catch {
		return { kind: "none" };
	}
}

function sameEntry(a: ConfigEntry, b: ConfigEntry): boolean {
	if (a.kind === "link" && b.kind === "link") return a.target === b.target && a.real === b.real;
	if (a.kind === "file" && b.kind === "file") return a.real === b.real;
	return a.kind === b.kind;
}

function parseProjectConfig(file: string, text: string): LoadedProjectConfig {
	const parse = yamlParser(file);
	let parsed: unknown;
	try {
		parsed = parse(text);
	} catch (error) {
		throw new ConfigError(file, "", `valid YAML expected (${(error as Error).message})`);
	}
	const result = projectConfigSchema.safeParse(parsed ?? {});
	if (!result.success) {
		const issue = result.error.issues[0];
		throw new ConfigError(file, issue?.path.join(".") ?? "", issue?.message ?? "invalid");
	}
	for (const [agentId, agent] of Object.entries(result.data.agents)) {
		// Another agent calls it through a tool named after it, and providers allow only these names.
		if (agent.description !== undefined && Object.keys(result.data.agents).length > 1 && !SUBAGENT_ID.test(agentId)) {
			throw new ConfigError(
				file,
				`agents.${agentId}`,
				"an agent with a description is a tool of the others (agent__<id>): its id must be letters, digits, _ or - (at most 57)",
			);
		}
		if (agent.network !== undefined && agent.network.length > 0 && agent.sandbox === "off") {
			throw new ConfigError(
				file,
				`agents.${agentId}.network`,
				"allowed hosts apply to a sandbox; with sandbox: off commands reach every host. Remove network, or choose a sandbox",
			);
		}
		if (result.data.models[agent.model] === undefined) {
			const known = Object.keys(result.data.models);
			throw new ConfigError(
				file,
				`agents.${agentId}.model`,
				`"${agent.model}" is not a model defined under models (${known.length ? known.join(", ") : "none defined"})`,
			);
		}
	}
	return { config: result.data, file };
}

function deepFreeze<T>(value: T): T {
	if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const inner of Object.values(value)) deepFreeze(inner);
	}
	return value;
}

/** `${NAME}`, the form config files use, so the default model reads its key the same way. */
function envReference(name: string): string {
	return `\${${name}}`;
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** An agent id that makes a valid tool name after `agent__` (64 characters at most). */
const SUBAGENT_ID = /^[A-Za-z0-9_-]{1,57}$/;

/**
 * Replaces `${NAME}` with the variable's value. A reference to a variable that is not set is an
 * error naming the file, the key and the variable: a missing credential should say which.
 */
export function resolveEnv(value: string, env: NodeJS.ProcessEnv, file: string, keyPath: string): string {
	return value.replace(ENV_REFERENCE, (_match, name: string) => {
		const resolved = env[name];
		if (resolved === undefined || resolved === "") {
			throw new ConfigError(file, keyPath, `environment variable ${name} is not set`);
		}
		return resolved;
	});
}

/**
 * `resolveEnv` for a credential (a model's key, URL or header): a `${` that is no `${NAME}` reference
 * is an error, not a value sent as written. Not for an MCP server's args and env, which are a
 * command's own and may hold `${PORT:-3000}` for its shell.
 */
function resolveCredential(value: string, env: NodeJS.ProcessEnv, file: string, keyPath: string): string {
	// Checked before expanding: a value read from the environment may hold "${" itself.
	const rest = value.replace(ENV_REFERENCE, "");
	const malformed = rest.indexOf("${");
	if (malformed !== -1) {
		const after = rest.slice(malformed);
		const shown = after.length > 24 ? `${after.slice(0, 24)}…` : after;
		throw new ConfigError(
			file,
			keyPath,
			`a \${NAME} reference (letters, digits and _, no spaces or defaults) expected, not ${shown}`,
		);
	}
	return resolveEnv(value, env, file, keyPath);
}

/** A model's settings with every `${ENV}` reference resolved from `env`. */
export function resolveModel(name: string, model: ModelConfig, env: NodeJS.ProcessEnv, file: string): ModelConfig {
	const resolved: ModelConfig = { ...model };
	if (model.apiKey !== undefined) resolved.apiKey = resolveCredential(model.apiKey, env, file, `models.${name}.apiKey`);
	if (model.baseURL !== undefined) {
		const key = `models.${name}.baseURL`;
		resolved.baseURL = resolveCredential(model.baseURL, env, file, key);
		if (!URL.canParse(resolved.baseURL)) {
			throw new ConfigError(file, key, `${model.baseURL} does not give a URL once its variables are read`);
		}
	}
	if (model.headers !== undefined) {
		resolved.headers = Object.fromEntries(
			Object.entries(model.headers).map(([key, v]) => [
				key,
				resolveCredential(v, env, file, `models.${name}.headers.${key}`),
			]),
		);
	}
	return resolved;
}

/** An MCP server's settings with every `${ENV}` reference in its env and args resolved from `env`. */
export function resolveMcpServer(
	name: string,
	server: McpServerEntry,
	env: NodeJS.ProcessEnv,
	file: string,
): McpServerEntry {
	const resolved: McpServerEntry = { ...server };
	if (server.args !== undefined) {
		resolved.args = server.args.map((arg, i) => resolveEnv(arg, env, file, `mcp.${name}.args.${i}`));
	}
	if (server.env !== undefined) {
		resolved.env = Object.fromEntries(
			Object.entries(server.env).map(([key, v]) => [key, resolveEnv(v, env, file, `mcp.${name}.env.${key}`)]),
		);
	}
	return resolved;
}

/**
 * With no config file at all: a sensible default model from the provider key that is set.
 * Anthropic first when both are, since its key is the more specific choice.
 */
export function defaultModelFromEnv(env: NodeJS.ProcessEnv): { name: string; model: ModelConfig } | undefined {
	if (env.ANTHROPIC_API_KEY) {
		return {
			name: "default",
			model: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: envReference("ANTHROPIC_API_KEY") },
		};
	}
	if (env.OPENAI_API_KEY) {
		return {
			name: "default",
			model: { provider: "openai", model: "gpt-5-mini", apiKey: envReference("OPENAI_API_KEY") },
		};
	}
	return undefined;
}
