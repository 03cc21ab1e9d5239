import { connectionPasswords, isCommonPassword } from "./connection-passwords.js";
import type { ProjectConfig } from "./project-config.js";

/**
 * Environment variables whose values are credentials by their name: the server's token and what
 * providers and tools conventionally read keys from (`*_API_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*PASSWORD*`, `*_KEY`).
 */
const CREDENTIAL_NAME = /(^OMNILOOP_TOKEN$|_API_KEY$|_TOKEN$|_SECRET$|PASSWORD|_KEY$|_ACCESS_KEY_ID$)/i;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The sections of text written for the model (agents' system prompts and descriptions, workflows'
 * prompts and questions): a `${NAME}` there is words, never read from the environment.
 */
const TEXT_SECTIONS: ReadonlySet<string> = new Set(["agents", "workflows"]);

/**
 * Variables a setting reads that are the machine's or the user's, not a secret (`${HOME}/.kube`):
 * their values are paths and names that appear everywhere, and commands need them.
 */
const NOT_SECRET = new Set([
	"HOME",
	"PATH",
	"USER",
	"LOGNAME",
	"SHELL",
	"PWD",
	"TMPDIR",
	"TEMP",
	"TMP",
	"LANG",
	"TERM",
	"HOSTNAME",
	"XDG_CONFIG_HOME",
	"XDG_DATA_HOME",
	"XDG_CACHE_HOME",
	"XDG_STATE_HOME",
	"XDG_RUNTIME_DIR",
]);

/**
 * The names of the variables the project config reads (`${NAME}` in any setting: a model's apiKey,
 * baseURL or headers, an MCP server's env or args), whatever they are called, but the machine's
 * own (NOT_SECRET). A variable the
 * config hands to a provider or a server is a credential by that use: a name like GH_PAT matches
 * no credential pattern, and a setting added later is covered without a list to keep up.
 */
export function configCredentialNamesOf(config: ProjectConfig): string[] {
	const names = new Set<string>();
	for (const [section, value] of Object.entries(config)) {
		if (!TEXT_SECTIONS.has(section)) collectReferences(value, names);
	}
	return [...names];
}

/** The values of the variables the project config reads (see configCredentialNamesOf) that are set in `env`. */
export function configCredentialValuesOf(config: ProjectConfig, env: NodeJS.ProcessEnv): string[] {
	return configCredentialNamesOf(config).flatMap((name) => {
		const value = env[name];
		return value === undefined || value === "" ? [] : [value];
	});
}

/** Adds the names `${NAME}` references in every string of `value` (strings, arrays, objects, at any depth). */
function collectReferences(value: unknown, names: Set<string>): void {
	if (typeof value === "string") {
		for (const match of value.matchAll(REFERENCE)) {
			const name = match[1] as string;
			if (!NOT_SECRET.has(name)) names.add(name);
		}
	} else if (Array.isArray(value)) {
		for (const item of value) collectReferences(item, names);
	} else if (typeof value === "object" && value !== null) {
		for (const item of Object.values(value)) collectReferences(item, names);
	}
}

/**
 * The values in `env` that are credentials by name, or by shape (a connection string with a
 * password in it: `DATABASE_URL=postgres://app:pw@db/x`, connection-passwords.ts), with the
 * password alone: what a host redacts even when no config names them.
 */
export function credentialValuesOf(env: NodeJS.ProcessEnv): string[] {
	const values: string[] = [];
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined || value === "") continue;
		if (CREDENTIAL_NAME.test(name)) {
			values.push(value);
			continue;
		}
		const passwords = passwordsIn(value);
		if (passwords.length > 0) values.push(value, ...passwords.filter((p) => !isCommonPassword(p)));
	}
	return values;
}

/** More distinct values than an environment has: a process that keeps changing its own cannot grow it without end. */
const MOST_REMEMBERED = 4096;
const passwordsByValue = new Map<string, readonly string[]>();

/**
 * The passwords a variable's value carries (connectionPasswords), remembered by the value: every
 * Task's start reads the whole environment again (Emitter: the values to redact), and parsing
 * each value cost about 1 µs a variable, ~80 µs a start with a developer's environment; a value
 * that changed is looked up as the new value it is.
 */
function passwordsIn(value: string): readonly string[] {
	let passwords = passwordsByValue.get(value);
	if (passwords === undefined) {
		passwords = connectionPasswords(value);
		if (passwordsByValue.size >= MOST_REMEMBERED) passwordsByValue.clear();
		passwordsByValue.set(value, passwords);
	}
	return passwords;
}
