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

export const NO_ENVIRONMENT_FILTER: EnvironmentFilter = { include: [], exclude: [] };

/** A name or pattern as the config accepts it. */
export const VARIABLE_PATTERN = /^[A-Za-z_*][A-Za-z0-9_*]*$/;

/** `env` without the variables the filter keeps out. */
export function filterEnvironment(env: NodeJS.ProcessEnv, filter: EnvironmentFilter): Record<string, string> {
	const secret = SECRET_VARIABLE_PATTERNS.map(patternRegExp);
	const include = filter.include.map(patternRegExp);
	const exclude = filter.exclude.map(patternRegExp);
	const kept: Record<string, string> = {};
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined) continue;
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
