import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProjectConfig } from "../../src/config/project-config.js";
import { defineAgent } from "../../src/engine/agent/agent-definition.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configDir(agent: string): string {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-config-"));
	dirs.push(dir);
	writeFileSync(join(dir, "omniloop.yaml"), `models:\n  m: { provider: openai, model: x }\nagents:\n  bot:\n${agent}`);
	return dir;
}

describe("an agent's sandbox in omniloop.yaml (docs/sandbox.md)", () => {
	it("is workspace-write with the default environment filter when not given", () => {
		const dir = configDir("    model: m\n");
		const definition = defineAgent("bot", loadProjectConfig(dir), dir, {});
		expect(definition.shell).toEqual({ sandbox: "workspace-write", network: [], env: { include: [], exclude: [] } });
	});

	it("reads sandbox, network and shell.env", () => {
		const dir = configDir(
			"    model: m\n    sandbox: read-only\n    network: [registry.npmjs.org, '*.github.com', 'localhost:3000']\n    shell: { env: { include: [GITHUB_TOKEN], exclude: [AWS_*] } }\n",
		);
		const definition = defineAgent("bot", loadProjectConfig(dir), dir, {});
		expect(definition.shell).toEqual({
			sandbox: "read-only",
			network: ["registry.npmjs.org", "*.github.com", "localhost:3000"],
			env: { include: ["GITHUB_TOKEN"], exclude: ["AWS_*"] },
		});
	});

	it("names the file and key of a bad value", () => {
		const bad: [string, RegExp][] = [
			[
				"    model: m\n    sandbox: strict\n",
				/omniloop\.yaml: agents\.bot\.sandbox: .*"workspace-write"\|"read-only"\|"off"/,
			],
			[
				"    model: m\n    shell: { env: { include: [ok, 'no spaces'] } }\n",
				/omniloop\.yaml: agents\.bot\.shell\.env\.include\.1: an environment variable name, or a pattern with \*/,
			],
			["    model: m\n    shell: { env: { only: [A] } }\n", /omniloop\.yaml: agents\.bot\.shell\.env: .*only/],
		];
		for (const [agent, expected] of bad) expect(() => loadProjectConfig(configDir(agent))).toThrow(expected);
	});

	it("refuses a network entry that is not a host, and hosts with sandbox: off (where they would mean nothing)", () => {
		for (const entry of ["'https://x.org/'", "'x.org:'", "'x.org:123456'"]) {
			expect(() => loadProjectConfig(configDir(`    model: m\n    network: [${entry}]\n`))).toThrow(
				/omniloop\.yaml: agents\.bot\.network\.0: a host name, or \*\.domain for its subdomains, with :port/,
			);
		}
		expect(() => loadProjectConfig(configDir("    model: m\n    network: ['x.org:70000']\n"))).toThrow(
			/omniloop\.yaml: agents\.bot\.network\.0: a port from 1 to 65535 expected/,
		);
		expect(() => loadProjectConfig(configDir("    model: m\n    sandbox: off\n    network: [x.org]\n"))).toThrow(
			/omniloop\.yaml: agents\.bot\.network: allowed hosts apply to a sandbox; with sandbox: off commands reach every host/,
		);
	});
});
