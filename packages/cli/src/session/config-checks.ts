import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadProjectConfig, type ModelConfig } from "@omniloop/core";
import { UsageError } from "../errors.js";
import type { Screen } from "../terminal/screen.js";
import type { ModelChoice } from "./model-choice.js";

/**
 * Careless input caught before anything starts, each with what to do instead: a --config-dir
 * that is not there, a --model or --agent that needs an omniloop.yaml when there is none, a
 * credential written `$VAR` (used as written) where `${VAR}` (read from the environment) was meant.
 */
export interface CheckedOptions {
	configDir: string;
	/** Whether --config-dir was given (the default is the current folder, which always exists). */
	configDirGiven: boolean;
	agentId: string;
	agentGiven: boolean;
	choice: ModelChoice;
}

export function checkConfigDir(configDir: string): void {
	if (!existsSync(configDir)) throw new UsageError(`--config-dir ${configDir} does not exist`);
	if (!statSync(configDir).isDirectory())
		throw new UsageError(`--config-dir ${configDir} is not a folder (it is where omniloop.yaml is read from)`);
}

/**
 * The agent to run is not in omniloop.yaml (createAgent's AgentConfigError "unknown_agent", which
 * names createAgent): said in the command's words — which agent, asked for how — with those it has.
 */
export function unknownAgent(
	options: { configDir: string; agentId: string; agentGiven: boolean },
	resumed: boolean,
): UsageError {
	const loaded = loadProjectConfig(options.configDir);
	const defined = Object.keys(loaded.config.agents);
	const where = `${loaded.file ?? join(options.configDir, "omniloop.yaml")} defines no agent "${options.agentId}" (agents: ${defined.join(", ") || "none"})`;
	if (resumed) return new UsageError(`the Session's agent: ${where}; define it again to go on with the Session`);
	return new UsageError(
		options.agentGiven
			? `--agent ${options.agentId}: ${where}`
			: `${where}, the agent that runs without --agent; name one with --agent, or define ${options.agentId}`,
	);
}

/** Checks what needs a config file against there being none; warns about `$VAR` credentials. */
export function checkProjectConfig(options: CheckedOptions, screen: Screen): void {
	if (options.configDirGiven) checkConfigDir(options.configDir);
	let loaded: ReturnType<typeof loadProjectConfig>;
	try {
		loaded = loadProjectConfig(options.configDir);
	} catch {
		// A broken file is createAgent's to report, with the key at fault.
		return;
	}
	if (loaded.file === undefined) {
		if (options.choice.kind === "named")
			throw new UsageError(namedModelWithoutConfig(options.choice.name, options.configDir));
		if (options.agentGiven && options.agentId !== "default_agent") {
			throw new UsageError(
				`--agent ${options.agentId}: there is no omniloop.yaml in ${options.configDir}, where agents are defined; without one only default_agent runs (see "Use a real model" in the README, or pass --config-dir)`,
			);
		}
		return;
	}
	for (const [name, model] of Object.entries(loaded.config.models)) {
		for (const [key, value] of credentialValues(model)) {
			const bare = /(?<![$\\])\$([A-Za-z_][A-Za-z0-9_]*)(?!\w|\})/.exec(value);
			if (bare === null || value.includes(`\${${bare[1]}}`)) continue;
			// Only a value that is nothing but `$NAME` is shown: any other may be a real secret with a `$` in it.
			const where = `${loaded.file}: models.${name}.${key}`;
			screen.warn(
				value === `$${bare[1]}`
					? `${where} holds "${value}", which is used as written, not read from the environment; to read the environment variable write "\${${bare[1]}}"`
					: `${where} has a "$" followed by a name in it, which is used as written, not read from the environment; if that part is meant to read an environment variable, write it as "\${NAME}"`,
			);
		}
	}
}

function credentialValues(model: ModelConfig): [string, string][] {
	const values: [string, string][] = [];
	if (model.apiKey !== undefined) values.push(["apiKey", model.apiKey]);
	if (model.baseURL !== undefined) values.push(["baseURL", model.baseURL]);
	for (const [header, value] of Object.entries(model.headers ?? {})) values.push([`headers.${header}`, value]);
	return values;
}

/** Model names whose provider is plain from the name. */
const PROVIDER_BY_NAME: readonly [RegExp, string, string][] = [
	[/^(gpt-|o\d|chatgpt-|codex-)/i, "openai", "OPENAI_API_KEY"],
	[/^claude-/i, "anthropic", "ANTHROPIC_API_KEY"],
	[/^gemini-/i, "google", "GOOGLE_GENERATIVE_AI_API_KEY"],
];

function namedModelWithoutConfig(name: string, configDir: string): string {
	const base = `--model ${name}: there is no omniloop.yaml in ${configDir} to define a model named "${name}"`;
	const known = PROVIDER_BY_NAME.find(([pattern]) => pattern.test(name));
	if (known !== undefined) {
		return `${base}; to use ${name} directly, pass --model ${known[1]}:${name} (its key is read from ${known[2]})`;
	}
	return `${base}; name its provider, e.g. --model openai:${name}, anthropic:<model> or google:<model>`;
}
