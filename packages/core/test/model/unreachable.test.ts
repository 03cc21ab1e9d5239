import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import { cleanup, ofType, runText, tempDir } from "../harness.js";

afterEach(cleanup);

/** A loopback port nothing listens on: taken from the OS, then closed. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	if (address === null || typeof address === "string") throw new Error("no port");
	return address.port;
}

async function sessionOn(baseURL: string) {
	const configDir = tempDir();
	const file = join(configDir, "omniloop.yaml");
	writeFileSync(
		file,
		[
			"models:",
			`  local: { provider: openai-compatible, model: qwen3-coder, baseURL: "${baseURL}" }`,
			"agents:",
			"  default_agent: { model: local }",
		].join("\n"),
	);
	const agent = await createAgent({
		agentId: "default_agent",
		configDir,
		home: tempDir(),
		builtins: false,
		settings: { reconnect: { baseMs: 1, capMs: 2 } },
	});
	return { session: await agent.createSession({ workspaceDir: tempDir() }), file };
}

describe("a model server that cannot be reached", () => {
	it('a refused connection is reported as "cannot connect to <baseURL> (model `<name>` in <file>)", not as a timeout, and reconnects as the spec says (a provider restarting)', async () => {
		const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
		const { session, file } = await sessionOn(baseURL);
		const out = await runText(session, "hi");
		const ends = ofType(out, "request_end");
		expect(ends).toHaveLength(6);
		expect(ends.slice(0, 5).every((e) => e.retry_in_ms !== undefined)).toBe(true);
		expect(ends.at(-1)?.status).toBe("failed");
		for (const end of ends) {
			expect(end.error?.message).toBe(`cannot connect to ${baseURL} (model \`local\` in ${file}): connection refused`);
			expect(end.error?.message).not.toMatch(/timeout|timed out/i);
			expect(end.error?.code).toBe("connection_refused");
		}
		expect(ofType(out, "done")[0]?.error?.message).toMatch(/^cannot connect to/);
	});

	it("an unknown host name ends at once, with no reconnect", async () => {
		const baseURL = "http://no-such-host.invalid/v1";
		const { session, file } = await sessionOn(baseURL);
		const out = await runText(session, "hi");
		const ends = ofType(out, "request_end");
		expect(ends.map((e) => [e.status, e.retry_in_ms])).toEqual([["failed", undefined]]);
		expect(ends[0]?.error?.message).toBe(
			`cannot connect to ${baseURL} (model \`local\` in ${file}): unknown host no-such-host.invalid`,
		);
	});

	it('a port fetch refuses ("bad port") ends at once, naming the URL it tried without the query that may hold a key', async () => {
		const baseURL = "http://127.0.0.1:6000/v1?api-key=sk-secret-in-query";
		const { session, file } = await sessionOn(baseURL);
		const out = await runText(session, "hi");
		const ends = ofType(out, "request_end");
		expect(ends.map((e) => [e.status, e.retry_in_ms])).toEqual([["failed", undefined]]);
		expect(ends[0]?.error?.message).toBe(
			`cannot connect to http://127.0.0.1:6000/v1 (model \`local\` in ${file}): its port is one fetch refuses to connect to ("bad port", e.g. 6000 or 6665-6669); use another port`,
		);
		expect(JSON.stringify(out)).not.toContain("sk-secret-in-query");
	});
});
