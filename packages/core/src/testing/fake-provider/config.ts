/** How a test's omniloop.yaml points a model at a fake provider (FakeProviderServer). */
export interface FakeModelYamlOptions {
	/** The model's wire (default openai-compatible). */
	provider?: "openai-compatible" | "openai" | "anthropic" | "openai-chat";
	/** The key as written in the file (default `${FAKE_KEY}`: read from the environment). */
	apiKey?: string;
	/** More fields of the model, inside its `{ … }` (a price, say). */
	model?: string;
	/** More fields of the default agent, inside its `{ … }` (an approval policy, a system prompt). */
	defaultAgent?: string;
	/** More agents, one `name: { … }` each. */
	agents?: readonly string[];
}

/**
 * The omniloop.yaml of most tests: one model `main` of `fake-model` at `baseURL` (a fake
 * provider's `${url}/v1`, or an address that does not answer), the default agent on it.
 */
export function fakeModelYaml(baseURL: string, options: FakeModelYamlOptions = {}): string {
	const more = (fields: string | undefined) => (fields === undefined ? "" : `, ${fields}`);
	return [
		"models:",
		`  main: { provider: ${options.provider ?? "openai-compatible"}, model: fake-model, baseURL: "${baseURL}", apiKey: "${options.apiKey ?? "${FAKE_KEY}"}"${more(options.model)} }`,
		"agents:",
		`  default_agent: { model: main${more(options.defaultAgent)} }`,
		...(options.agents ?? []).map((agent) => `  ${agent}`),
	].join("\n");
}
