import { describe, expect, it } from "vitest";
import { filterEnvironment, NO_ENVIRONMENT_FILTER } from "./shell-environment.js";

const host = {
	PATH: "/usr/bin",
	HOME: "/home/u",
	LANG: "C.UTF-8",
	OMNILOOP_TOKEN: "t",
	OMNILOOP_DATABASE_URL: "postgres://u:p@h/db",
	ANTHROPIC_API_KEY: "a",
	openai_api_key: "o",
	GITHUB_TOKEN: "g",
	AWS_SECRET_ACCESS_KEY: "s",
	AWS_REGION: "eu-west-1",
	DB_PASSWORD: "p",
	MY_SECRET: "m",
	NPM_CONFIG_REGISTRY: "r",
	DATABASE_URL: "postgres://app:hunter22@db.internal:5432/app",
	REDIS_URL: "redis://:s3cret-pass@cache:6379/0",
	SITE_URL: "https://example.com/path",
	PROXY_URL: "http://user@proxy:3128",
	// JDBC: a scheme with a colon in it, and the password as a parameter.
	REPORTS_DB: "jdbc:mysql://app:hunter22@db.internal:3306/reports",
	LEDGER_DB: "jdbc:postgresql://db.internal:5432/ledger?user=app&password=s3cret-pass&ssl=true",
	SQLSERVER_DB: "jdbc:sqlserver://db.internal:1433;databaseName=x;user=app;pwd=s3cret-pass",
	SEARCH_URL: "https://search.example/q?passwords=none&page=2",
	ORACLE_DB: "jdbc:oracle:thin:app/s3cret-pass@//db.internal:1521/svc",
	// A working directory, not a password: only SQL Server's `;pwd=` is one.
	APP_URL: "https://app.example/?pwd=/home/me&tab=2",
};

describe("the shell's environment (docs/sandbox.md)", () => {
	it("keeps omniloop's own variables and anything shaped like a credential out, case-insensitively", () => {
		expect(filterEnvironment(host, NO_ENVIRONMENT_FILTER)).toEqual({
			PATH: "/usr/bin",
			HOME: "/home/u",
			LANG: "C.UTF-8",
			AWS_REGION: "eu-west-1",
			NPM_CONFIG_REGISTRY: "r",
			// A URL is kept unless it carries a password: a connection string is a credential whatever its name.
			SITE_URL: "https://example.com/path",
			PROXY_URL: "http://user@proxy:3128",
			SEARCH_URL: "https://search.example/q?passwords=none&page=2",
			APP_URL: "https://app.example/?pwd=/home/me&tab=2",
		});
	});

	it("lets through what include names (names or * patterns, any case), and keeps out what exclude names", () => {
		const kept = filterEnvironment(host, { include: ["github_token", "AWS_*"], exclude: ["NPM_*"] });
		expect(Object.keys(kept).sort()).toEqual([
			"APP_URL",
			"AWS_REGION",
			"AWS_SECRET_ACCESS_KEY",
			"GITHUB_TOKEN",
			"HOME",
			"LANG",
			"PATH",
			"PROXY_URL",
			"SEARCH_URL",
			"SITE_URL",
		]);
		expect(filterEnvironment(host, { include: [], exclude: ["*"] })).toEqual({});
	});

	it("keeps out socket variables, the names models send and any variable holding a known credential value", () => {
		const env = {
			PATH: "/usr/bin",
			SSH_AUTH_SOCK: "/tmp/ssh/agent",
			docker_socket: "/run/docker.sock",
			DEEPSEEK: "x",
			COPY: "stored-value-123",
			SHLVL: "1",
		};
		const secrets = { names: ["DEEPSEEK"], values: ["stored-value-123", "1"] };
		// A value shorter than redaction's minimum is not told apart from an ordinary setting.
		expect(filterEnvironment(env, { include: ["DEEPSEEK", "COPY"], exclude: [] }, secrets)).toEqual({
			PATH: "/usr/bin",
			SHLVL: "1",
		});
	});
});
