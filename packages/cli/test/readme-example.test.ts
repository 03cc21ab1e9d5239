import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, fakeModelYaml } from "@omniloop/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ranOf } from "./install-steps.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The README's SDK example, exactly as written there: the first ts block of "## The SDK". */
function readmeExample(): string {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const section = readme.slice(readme.indexOf("## The SDK"));
	const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
	if (block === undefined) throw new Error("README.md has no ts block under ## The SDK");
	return block;
}

let server: FakeProviderServer;
let dir: string;
beforeAll(async () => {
	server = await FakeProviderServer.start();
	// Inside the repository, so `@omniloop/core` and `zod` resolve as in a project that installed them.
	mkdirSync(join(ROOT, "node_modules", ".cache"), { recursive: true });
	dir = mkdtempSync(join(ROOT, "node_modules", ".cache", "readme-example-"));
});
afterAll(async () => {
	await server.close();
	rmSync(dir, { recursive: true, force: true });
});

describe("the README", () => {
	it("its SDK example runs as written (saved as example.mjs, run with node) against a model", async () => {
		writeFileSync(join(dir, "example.mjs"), readmeExample());
		writeFileSync(join(dir, "omniloop.yaml"), fakeModelYaml(`${server.url}/v1`));
		server.enqueue(
			{ toolCalls: [{ id: "call_wc", name: "word_count", arguments: { text: "to be or not to be" } }] },
			{ text: "There are 6 words." },
			{ text: "[summary]The user asked for a word count: 6.[/summary]" },
			{ text: "Counting words" },
		);
		const home = join(dir, "home");
		mkdirSync(home);
		const { code, stdout, stderr } = await ranOf(
			spawn(process.execPath, ["example.mjs"], {
				cwd: dir,
				env: { PATH: process.env.PATH, HOME: home, OMNILOOP_HOME: home, FAKE_KEY: "k" },
				stdio: ["ignore", "pipe", "pipe"],
			}),
		);
		expect(code, `${stdout}\n${stderr}`).toBe(0);
		expect(stdout).toContain("There are 6 words.");
		expect(stdout).toContain("[model_stop]");
		expect(stdout).toContain("compaction: ok");
		expect(stdout).toContain("title: Counting words");
		// The tool really ran: its output went back to the model.
		expect(server.requests[1]?.rawBody).toContain('"6"');
	});
});
