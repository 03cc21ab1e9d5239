import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { yamlParser } from "./yaml.js";

/**
 * The default compaction prompt. What a fresh context needs to carry on without the old one:
 * the goal, the state of the work, the decisions, the files, the next steps — and the newest
 * user request verbatim, because a paraphrase of it is where summaries lose the task.
 */
export const DEFAULT_COMPACTION_PROMPT = [
	"Your context window is nearly full. This conversation will continue in a fresh context that holds only the summary you write now, so it must let you carry on the task without anything else.",
	"Do not call any tool. Reply with the summary inside [summary]…[/summary], using these sections:",
	"1. Goal — what the user wants overall, and any constraints or preferences they stated.",
	"2. State of the work — what is done, what is in progress, what was verified and how.",
	"3. Decisions — choices made and why, including approaches tried and rejected.",
	"4. Files — every file read, created or changed, with what matters about each.",
	"5. Next steps — what remains, in order.",
	"6. Newest user request — quote the user's most recent request word for word.",
	"Be complete but concise: the summary must be much shorter than the conversation it replaces.",
].join("\n");

/** `system_config.yaml`: engine defaults. Every key is optional; the spec's names in camelCase. */
export const systemConfigSchema = z
	.object({
		maxTurns: z.number().int().positive().default(100),
		maxSessionTokens: z.number().int().nonnegative().default(0),
		compaction: z
			.object({
				maxContextLength: z.number().int().default(128_000),
				maxSessionTurns: z.number().int().default(-1),
				mode: z.enum(["summarize", "discard"]).default("summarize"),
				prompt: z.string().min(1).default(DEFAULT_COMPACTION_PROMPT),
			})
			.strict()
			.prefault({}),
		reconnect: z
			.object({
				maxRetries: z.number().int().nonnegative().default(5),
				baseMs: z.number().int().positive().default(250),
				capMs: z.number().int().positive().default(30_000),
				compactionMaxRetries: z.number().int().nonnegative().default(3),
			})
			.strict()
			.prefault({}),
		timeouts: z
			.object({
				firstByteMs: z.number().int().positive().default(60_000),
				idleMs: z.number().int().positive().default(90_000),
				requestMs: z.number().int().positive().default(600_000),
				toolMs: z.number().int().positive().default(600_000),
			})
			.strict()
			.prefault({}),
		clearToolResults: z
			.object({
				/**
				 * On by default, as the loop's thinking step (docs/architecture.md): above the threshold,
				 * near the compaction trigger, older outputs shrink instead. Each turn above it rewrites the
				 * outputs that just aged past `keepTurns`, which costs the provider's prompt cache from
				 * there on; off keeps every output whole.
				 */
				enabled: z.boolean().default(true),
				/** Clear when the last request used this share of maxContextLength. */
				threshold: z.number().gt(0).lte(1).default(0.7),
				/** Outputs of the last N turns are kept whole; at least 1, so outputs the model has not seen yet never are cleared. */
				keepTurns: z.number().int().min(1).default(3),
			})
			.strict()
			.prefault({}),
		loopDetection: z
			.object({
				enabled: z.boolean().default(true),
				repeats: z.number().int().min(2).default(5),
			})
			.strict()
			.prefault({}),
		subagents: z
			.object({
				/** How deep Sessions may nest: a Session at this depth gets no subagent tools. */
				maxDepth: z.number().int().nonnegative().default(2),
			})
			.strict()
			.prefault({}),
		/** The Runtime Server's tunables; read by `@omniloop/server`, not by the engine. */
		server: z
			.object({
				heartbeatMs: z.number().int().positive().default(15_000),
				viewerQueueMessages: z.number().int().positive().default(10_000),
				stallTimeoutMs: z.number().int().positive().default(10_000),
				bodyLimitBytes: z.number().int().positive().default(1_048_576),
				leaseMs: z.number().int().positive().default(15_000),
				/** How long a SQLite write waits (asynchronously) for another process's lock before it is given up. */
				storeBusyMs: z.number().int().positive().default(5_000),
				/** A socket that has not sent a whole request head by then is closed (slowloris). */
				headersTimeoutMs: z.number().int().positive().default(10_000),
				/** Open sockets that have not yet made a request with the token; one more is closed at once. */
				maxUnauthenticatedSockets: z.number().int().positive().default(64),
			})
			.strict()
			.prefault({}),
		trace: z
			.object({
				/** fsync each flush: survives power loss, costs a disk round trip per turn. */
				durable: z.boolean().default(false),
				/** Off: nothing is written, and the Session cannot be resumed (embedding, benchmarks). */
				enabled: z.boolean().default(true),
			})
			.strict()
			.prefault({}),
	})
	.strict();

/** `system_config.yaml` of the omniloop home, parsed, with every default filled in. */
export type SystemConfig = z.output<typeof systemConfigSchema>;
/** What `system_config.yaml` may hold (every key optional), also accepted as overrides. */
export type SystemConfigInput = z.input<typeof systemConfigSchema>;

/** A config file holds a value it must not: names the file and the key path. */
export class ConfigError extends Error {
	override readonly name = "ConfigError";
	constructor(
		readonly file: string,
		readonly keyPath: string,
		readonly expected: string,
	) {
		super(`${file}: ${keyPath || "(top level)"}: ${expected}`);
	}
}

/** `$OMNILOOP_HOME`, or `~/.omniloop`. */
export function omniloopHome(env: NodeJS.ProcessEnv = process.env): string {
	return env.OMNILOOP_HOME && env.OMNILOOP_HOME !== "" ? env.OMNILOOP_HOME : join(homedir(), ".omniloop");
}

/** Checks a config object; `source` names where it came from in any error. */
export function parseSystemConfig(value: unknown, source: string): SystemConfig {
	const result = systemConfigSchema.safeParse(value ?? {});
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	throw new ConfigError(source, issue?.path.join(".") ?? "", issue?.message ?? "invalid");
}

/** Reads `system_config.yaml` from `home`; every key falls back to its default. */
export function loadSystemConfig(home: string, overrides: SystemConfigInput = {}): SystemConfig {
	const file = join(home, "system_config.yaml");
	let fromFile: Record<string, unknown> = {};
	if (existsSync(file)) {
		const parse = yamlParser(file);
		let parsed: unknown;
		try {
			parsed = parse(readFileSync(file, "utf8"));
		} catch (error) {
			throw new ConfigError(file, "", `valid YAML expected (${(error as Error).message})`);
		}
		if (parsed !== null && parsed !== undefined && (typeof parsed !== "object" || Array.isArray(parsed))) {
			throw new ConfigError(file, "", "a mapping of settings expected");
		}
		fromFile = (parsed ?? {}) as Record<string, unknown>;
		parseSystemConfig(fromFile, file);
	}
	return parseSystemConfig(
		mergeDeep(fromFile, overrides as Record<string, unknown>),
		`${file} (with createAgent settings)`,
	);
}

function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = { ...base };
	for (const [key, value] of Object.entries(over)) {
		const prior = out[key];
		out[key] =
			isPlainObject(prior) && isPlainObject(value) ? mergeDeep(prior, value) : value === undefined ? prior : value;
	}
	return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
