import { readFileSync, writeFileSync } from "node:fs";
import { it } from "vitest";
import { userText } from "../../src/messages/index.js";
import { AiSdkModel } from "../../src/model/ai-sdk/adapter.js";
import type { ProviderKind } from "../../src/model/ai-sdk/providers.js";
import type { ModelEvent } from "../../src/model/model-adapter.js";
import { FakeProviderServer, type ReplayConvention } from "../../src/testing.js";

const DIR = new URL("../fixtures/recorded-streams/", import.meta.url);
const expected = JSON.parse(readFileSync(new URL("expected.json", DIR), "utf8")) as Record<string, { provider: string; sseConvention: ReplayConvention }>;
const KIND: Record<string, ProviderKind> = { anthropic: "anthropic", "openai-responses": "openai", "openai-chat": "openai-chat", "openai-compatible": "openai-compatible", deepseek: "openai-compatible", mistral: "openai-compatible", google: "google" };

it("dump", async () => {
	const out: Record<string, unknown> = {};
	for (const [file, fact] of Object.entries(expected)) {
		for (const split of [false, true]) {
		const server = await FakeProviderServer.start();
		const lines = readFileSync(new URL(file, DIR), "utf8").split("\n");
		server.replayRecorded(lines, fact.sseConvention, { splitWrites: split });
		const provider = KIND[fact.provider]!;
		const model = AiSdkModel.fromConfig({ provider, model: "m", apiKey: "test", baseURL: `${server.url}${provider === "google" ? "/v1beta" : "/v1"}` });
		const events: ModelEvent[] = [];
		try {
			for await (const e of model.streamGenerate({ messages: [userText("hi")], tools: [], purpose: "turn" }, new AbortController().signal)) events.push(e);
		} catch (error) { events.push({ type: "text", text: `THROWN ${String(error)}` }); }
		out[`${file}${split ? " split" : ""}`] = { path: server.requests.map((r) => r.path), events };
		await server.close();
		}
	}
	writeFileSync("/tmp/dump.json", JSON.stringify(out, null, 1));
});
