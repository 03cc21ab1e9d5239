import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, tempDir } from "../harness.js";

afterEach(cleanup);

const CHILD = new URL("./hidden-classes-child.mjs", import.meta.url).pathname;

describe("a Session's state", () => {
	// Every streamed delta reads its Session's state (the seq). Were each state its own hidden class
	// (V8 gives one to each object made by a spread and then given more properties), those reads
	// would miss V8's inline caches once a server holds more Sessions than its stub cache
	// (docs/performance.md): 40 Sessions made that way had ~32 hidden classes.
	it("has one hidden class for every Session made, and one for every Session resumed", async () => {
		const { stdout } = await promisify(execFile)(process.execPath, [
			"--allow-natives-syntax",
			CHILD,
			tempDir("omniloop-maps-"),
			"40",
		]);
		expect(JSON.parse(stdout)).toEqual({ made: 1, resumed: 1 });
	});
});
