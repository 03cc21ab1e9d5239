import { holdsPassword } from "../../config/connection-passwords.js";
import { MIN_SECRET_LENGTH } from "../../messages/redaction.js";

/**
 * Which of the host's environment variables a command sees (an agent's `shell.env` in
 * omniloop.yaml). Patterns are names with `*` for any run of characters, matched ignoring case.
 */
export interface EnvironmentFilter {
	/** Let through even when a secret pattern matches (e.g. `GITHUB_TOKEN` for a `gh` command). */
	readonly include: readonly string[];
	/** Kept out besides the secret patterns. */
	readonly exclude: readonly string[];
}

/**
 * Names that hold credentials: omniloop's own (its server token, its database URL) and the usual
 * shapes of keys, tokens, secrets and passwords. A command the person allowed must not be able to
 * drive omniloop's API or spend its provider keys (docs/sandbox.md).
 */
export const SECRET_VARIABLE_PATTERNS: readonly string[] = [
	"OMNILOOP_*",
	"*_API_KEY",
	"*_KEY",
	"*_KEY_*",
	"*TOKEN*",
	"*SECRET*",
	"*PASSWORD*",
	"*PASSWD*",
	"*CREDENTIAL*",
];

/**
 * Names of variables that point at a Unix socket (`SSH_AUTH_SOCK`, `DOCKER_SOCK`, …): the agent
 * behind it holds credentials (ssh-agent's keys) or rights (Docker's daemon). Kept out like secrets.
 */
export const SOCKET_VARIABLE_PATTERNS: readonly string[] = ["*_SOCK", "*_SOCKET"];

/** Variables that are credentials whatever they are called (see docs/sandbox.md). */
export interface SecretVariables {
	/** Names the project config reads (`${DEEPSEEK}` in an apiKey, `${GH_PAT}` in an MCP server's env). */
	readonly names: readonly string[];
	/** Known credential values (the host's stored credentials, the token): a variable holding one is kept out. */
	readonly values: readonly string[];
}

export const NO_ENVIRONMENT_FILTER: EnvironmentFilter = { include: [], exclude: [] };

/** A name or pattern as the config accepts it. */
export const VARIABLE_PATTERN = /^[A-Za-z_*][A-Za-z0-9_*]*$/;

/**
 * `env` without the variables the filter keeps out, and without `secrets` (which `include` does
 * not let through: a model's key is never a command's to spend), nor a URL with a password in it
 * (`DATABASE_URL=postgres://app:pw@db/x`), whatever it is called.
 */
export function filterEnvironment(
	env: NodeJS.ProcessEnv,
	filter: EnvironmentFilter,
	secrets: SecretVariables = { names: [], values: [] },
): Record<string, string> {
	const secret = [...SECRET_VARIABLE_PATTERNS, ...SOCKET_VARIABLE_PATTERNS].map(patternRegExp);
	const names = new Set(secrets.names);
	// Short values (a "1", a "true") are not told apart from ordinary settings, as in redaction.
	const values = new Set(secrets.values.filter((value) => value.length >= MIN_SECRET_LENGTH));
	const include = filter.include.map(patternRegExp);
	const exclude = filter.exclude.map(patternRegExp);
	const kept: Record<string, string> = {};
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined) continue;
		if (names.has(name) || values.has(value) || holdsPassword(value)) continue;
		if (exclude.some((p) => p.test(name))) continue;
		if (secret.some((p) => p.test(name)) && !include.some((p) => p.test(name))) continue;
		kept[name] = value;
	}
	return kept;
}

function patternRegExp(pattern: string): RegExp {
	const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
	return new RegExp(`^${escaped}$`, "i");
}
