import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, tempDir } from "../harness.js";

afterEach(cleanup);

const CHILD = new URL("./hidden-classes-child.mjs", import.meta.url).pathname;

describe("hidden classes on the streaming path", () => {
	// Every streamed delta reads its Session's state (the seq), and every layer reads each forwarded
	// subagent message. Were each object its own hidden class (V8 gives one to each object made by a
	// spread and then given more properties), those reads would miss V8's inline caches once a
	// server holds more of them than its stub cache (docs/performance.md). Made by spreads, 40
	// Sessions had 31 hidden classes, 20 resumed ones 11, and 40 forwarded messages 32.
	it("one for every Session made, one for every Session resumed, one for forwarded messages", async () => {
		const { stdout } = await promisify(execFile)(process.execPath, [
			"--allow-natives-syntax",
			CHILD,
			tempDir("omniloop-maps-"),
			"40",
		]);
		expect(JSON.parse(stdout)).toEqual({ made: 1, resumed: 1, forwarded: 1 });
	});
});
