import type { ProjectConfig } from "./project-config.js";

/**
 * Environment variables whose values are credentials by their name: the server's token and what
 * providers and tools conventionally read keys from (`*_API_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*PASSWORD*`, `*_KEY`).
 */
const CREDENTIAL_NAME = /(^OMNILOOP_TOKEN$|_API_KEY$|_TOKEN$|_SECRET$|PASSWORD|_KEY$|_ACCESS_KEY_ID$)/i;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The names of the variables a project's models send (`${NAME}` in apiKey and headers), whatever they are. */
export function modelCredentialNamesOf(config: ProjectConfig): string[] {
	const names = new Set<string>();
	for (const model of Object.values(config.models)) {
		for (const text of [model.apiKey ?? "", ...Object.values(model.headers ?? {})]) {
			for (const match of text.matchAll(REFERENCE)) names.add(match[1] as string);
		}
	}
	return [...names];
}

/** The values of the variables a project's models send (`${NAME}` in apiKey and headers), whatever their names. */
export function modelCredentialValuesOf(config: ProjectConfig, env: NodeJS.ProcessEnv): string[] {
	return modelCredentialNamesOf(config).flatMap((name) => {
		const value = env[name];
		return value === undefined || value === "" ? [] : [value];
	});
}

/** The values in `env` that are credentials by name: what a host redacts even when no config names them. */
export function credentialValuesOf(env: NodeJS.ProcessEnv): string[] {
	const values: string[] = [];
	for (const [name, value] of Object.entries(env)) {
		if (value !== undefined && value !== "" && CREDENTIAL_NAME.test(name)) values.push(value);
	}
	return values;
}
