import { defaultModelFromEnv, type ProjectConfigFile } from "@omniloop/core/internal";

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function references(value: string | undefined): string[] {
	return value === undefined ? [] : [...value.matchAll(ENV_REFERENCE)].map((m) => m[1] as string);
}

export interface CredentialInfo {
	name: string;
	set: boolean;
	usedBy: string[];
}

/**
 * The values `${NAME}` references resolve to: a stored value wins over the environment. `env` is
 * the one object every agent reads when a Session loads, so a stored value applies from the next
 * load on. Values never leave this class except into that object.
 */
export class Credentials {
	readonly env: NodeJS.ProcessEnv;
	/** The names a value was stored for: whatever they are called, their values are secrets. */
	private readonly storedNames: Set<string>;

	constructor(
		base: NodeJS.ProcessEnv,
		stored: ReadonlyMap<string, string>,
		private readonly project: ProjectConfigFile,
	) {
		this.env = { ...base, ...Object.fromEntries(stored) };
		this.storedNames = new Set(stored.keys());
	}

	set(name: string, value: string): void {
		this.env[name] = value;
		this.storedNames.add(name);
	}

	/** The stored values, for redaction (core redacts the environment's credential-named ones itself). */
	storedValues(): string[] {
		return [...this.storedNames].flatMap((name) => this.env[name] ?? []);
	}

	/** The credential a model of omniloop.yaml sends (its apiKey's first `${NAME}`), by model name. */
	credentialOf(modelRef: string | undefined): string | undefined {
		if (modelRef === undefined) return undefined;
		const { config, file } = this.project.load();
		if (file === undefined && modelRef === "default") {
			return references(defaultModelFromEnv(this.env)?.model.apiKey)[0];
		}
		return references(config.models[modelRef]?.apiKey)[0];
	}

	/**
	 * Every credential a model of omniloop.yaml reads (its apiKey, baseURL and headers), by model
	 * name: a new value of any of them must reach the Sessions on that model.
	 */
	credentialsOf(modelRef: string | undefined): string[] {
		if (modelRef === undefined) return [];
		const { config, file } = this.project.load();
		if (file === undefined && modelRef === "default") return references(defaultModelFromEnv(this.env)?.model.apiKey);
		const model = config.models[modelRef];
		return model === undefined ? [] : modelReferences(model);
	}

	/** Every credential the project's models reference, whether a value is available, and who uses it. */
	list(): CredentialInfo[] {
		const { config, file } = this.project.load();
		const usedBy = new Map<string, string[]>();
		const add = (name: string, model: string) => usedBy.set(name, [...(usedBy.get(name) ?? []), model]);
		for (const [modelName, model] of Object.entries(config.models)) {
			for (const name of modelReferences(model)) add(name, modelName);
		}
		if (file === undefined) for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]) add(name, "default");
		return [...usedBy.entries()].map(([name, models]) => ({
			name,
			set: this.env[name] !== undefined && this.env[name] !== "",
			usedBy: models,
		}));
	}
}

/** The credentials one model's settings reference, each once. */
function modelReferences(model: { apiKey?: string; baseURL?: string; headers?: Record<string, string> }): string[] {
	return [
		...new Set([
			...references(model.apiKey),
			...references(model.baseURL),
			...Object.values(model.headers ?? {}).flatMap(references),
		]),
	];
}
