import { describe, expect, it } from "vitest";
import { configCredentialNamesOf, configCredentialValuesOf, credentialValuesOf } from "./credential-values.js";
import { projectConfigSchema } from "./project-config.js";

const config = projectConfigSchema.parse({
	models: {
		m: {
			provider: "openai-compatible",
			model: "x",
			apiKey: "${MODEL_KEY}",
			baseURL: "https://${PROXY_HOST}/v1",
			headers: { "X-Org": "org-${ORG_ID}" },
		},
	},
	mcp: {
		github: {
			command: "gh-mcp",
			args: ["--token=${ARG_SECRET}"],
			env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH_PAT}", KUBECONFIG: "${HOME}/.kube/config", P: "${PATH}" },
		},
	},
	agents: { bot: { model: "m", system: "Your files are under ${HOME}." } },
});

describe("the credentials a project config references", () => {
	it("are every `${NAME}` of its settings, whatever the setting (a model's or an MCP server's) and the name", () => {
		expect(configCredentialNamesOf(config).sort()).toEqual(
			["ARG_SECRET", "GH_PAT", "MODEL_KEY", "ORG_ID", "PROXY_HOST"].sort(),
		);
	});

	it("leave out the machine's own variables a setting reads (HOME, PATH): paths, not secrets", () => {
		expect(configCredentialNamesOf(config)).not.toContain("PATH");
		expect(configCredentialValuesOf(config, { HOME: "/home/me", PATH: "/usr/bin" })).toEqual([]);
	});

	it("leave out the text written for the model: a `${NAME}` in a system prompt is never read from the environment", () => {
		expect(configCredentialNamesOf(config)).not.toContain("HOME");
	});

	it("have the values set in the environment; unset and empty ones are none", () => {
		const env = { GH_PAT: "ghp_0123456789", MODEL_KEY: "", HOME: "/home/me" };
		expect(configCredentialValuesOf(config, env)).toEqual(["ghp_0123456789"]);
	});
});

describe("credentialValuesOf", () => {
	it("reads the environment as it is at each call: a variable changed since (a rotated password) gives its new value, a removed one none", () => {
		const env: NodeJS.ProcessEnv = { DATABASE_URL: "postgres://app:first-pass@db/app" };
		expect(credentialValuesOf(env)).toContain("first-pass");
		env.DATABASE_URL = "postgres://app:second-pass@db/app";
		expect(credentialValuesOf(env)).toEqual(["postgres://app:second-pass@db/app", "second-pass"]);
		env.DATABASE_URL = "postgres://db/app";
		expect(credentialValuesOf(env)).toEqual([]);
		// The same value under another name is a credential there too.
		expect(credentialValuesOf({ REPLICA: "postgres://app:second-pass@db/app" })).toContain("second-pass");
	});

	it("takes the values of variables named like credentials, and of any URL carrying a password", () => {
		const values = credentialValuesOf({
			PATH: "/usr/bin",
			ACME_API_KEY: "sk-acme",
			GITHUB_TOKEN: "ghp_x",
			DATABASE_URL: "postgres://app:hunter22@db:5432/app",
			SITE_URL: "https://example.com/",
			EMPTY_TOKEN: "",
		});
		// The password alone too: it is written elsewhere on its own (a .env, an error message).
		expect(values.sort()).toEqual(["ghp_x", "hunter22", "postgres://app:hunter22@db:5432/app", "sk-acme"]);
	});

	it("takes a JDBC URL's password, in its user part or as a parameter, as written and decoded", () => {
		const values = credentialValuesOf({
			REPORTS: "jdbc:mysql://app:hunter22@db/reports",
			LEDGER: "jdbc:postgresql://db/ledger?user=app&password=p%40ss-word&ssl=true",
		});
		expect(credentialValuesOf({ DB: "postgres://app:long-pass@word123@db/x" })).toEqual([
			"postgres://app:long-pass@word123@db/x",
			"long-pass@word123",
		]);
		expect(values.sort()).toEqual([
			"hunter22",
			"jdbc:mysql://app:hunter22@db/reports",
			"jdbc:postgresql://db/ledger?user=app&password=p%40ss-word&ssl=true",
			"p%40ss-word",
			"p@ss-word",
		]);
	});
});
