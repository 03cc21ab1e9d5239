import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FakeProviderServer, ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { messagesOf, onCleanup, readFrames, startServer, tempDirs, writeFakeModelConfig } from "./harness.js";

/** Every file under `dir`, read as text. */
function allText(dir: string): string {
	return readdirSync(dir)
		.map((name) => {
			const path = join(dir, name);
			return statSync(path).isDirectory() ? allText(path) : readFileSync(path, "utf8");
		})
		.join("\n");
}

// Named so that nothing guesses it is a credential from its name: it is one because a model sends it.
const KEY = "sk-live-0123456789abcdefXYZ";
const STORED = "stored-credential-value-42";

describe("redaction of credential values", () => {
	it("a provider error and model text that echo the key, a stored credential and the token show [redacted] in the stream, the Trace and the history", async () => {
		const provider = await FakeProviderServer.start();
		onCleanup(() => provider.close());
		const dirs = tempDirs();
		writeFakeModelConfig(dirs.root, provider.url, { apiKey: "${PROVIDER_CREDENTIAL}" });
		const t = await startServer({ env: { PROVIDER_CREDENTIAL: KEY } }, dirs);
		expect((await t.api("/credentials/SOME_SETTING", { method: "PUT", json: { value: STORED } })).status).toBe(204);
		const token = t.server.token;
		const id = await t.createSession();

		// Streamed in pieces, as a model repeats a key: no one delta holds all of it.
		provider.enqueue({
			text: ["The key is ", KEY.slice(0, 9), `${KEY.slice(9)}, the setting ${STORED}`, ` and the token ${token}.`],
		});
		const echoed = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "show me" } }),
		);
		// The provider refuses and its error repeats the key it was sent, as OpenAI's does.
		provider.enqueue((request) => ({
			fault: {
				kind: "status",
				status: 401,
				message: `Incorrect API key provided: ${String(request.headers.authorization).slice("Bearer ".length)}`,
			},
		}));
		const refused = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } }),
		);
		const history = await (await t.api(`/chat/sessions/${id}`)).text();

		const stream = JSON.stringify([...echoed.frames, ...refused.frames]);
		const traces = allText(join(dirs.home, "sessions", id));
		for (const [where, text] of [
			["stream", stream],
			["Trace", traces],
			["history", history],
		] as const) {
			for (const secret of [KEY, STORED, token]) expect([where, text.includes(secret)]).toEqual([where, false]);
		}
		const streamed = messagesOf(echoed.frames)
			.map((m) => (m.type === "partial_text" ? m.delta : ""))
			.join("");
		expect(streamed).toBe("The key is [redacted], the setting [redacted] and the token [redacted].");
		const text = messagesOf(echoed.frames).find((m) => m.type === "assistant_text");
		expect(text).toMatchObject({
			text: "The key is [redacted], the setting [redacted] and the token [redacted].",
		});
		const done = messagesOf(refused.frames).find((m) => m.type === "done");
		expect(done).toMatchObject({ reason: "error" });
		expect(JSON.stringify(done)).toContain("Incorrect API key provided: [redacted]");
		expect(history).toContain("Incorrect API key provided: [redacted]");
		// The provider did get the real key: only what is shown and kept is redacted.
		expect(provider.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
	});

	it("a generated title the model writes with a key the person typed: [redacted] in the response, the list and title.txt", async () => {
		const acme = "sk-acme-LIVE-0123456789abcdef";
		const model = new ScriptedModel([
			[{ type: "text", text: "Let me look." }],
			[{ type: "text", text: `Why does ${acme} fail?` }],
		]);
		const dirs = tempDirs();
		const t = await startServer({ model, env: { ACME_API_KEY: acme } }, dirs);
		const id = await t.createSession();
		await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: `why does ${acme} fail?` } }),
		);
		const title = await t.api(`/chat/sessions/${id}/title`, { method: "POST" });
		expect(await title.json()).toEqual({ title: "Why does [redacted] fail?" });
		const list = await (await t.api("/chat/sessions")).text();
		expect(list).toContain('"title":"Why does [redacted] fail?"');
		expect(list).not.toContain(acme);
		expect(readFileSync(join(dirs.home, "sessions", id, "title.txt"), "utf8")).not.toContain(acme);
	});
});
