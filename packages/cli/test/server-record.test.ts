import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runningServer } from "../src/commands/server-record.js";
import { useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("omniloop serve records itself in $OMNILOOP_HOME/server.json", () => {
	it("while it runs the file holds the token, the URL, the pid and the config folder (0600); on the way out all but the token go", async () => {
		const f = await start();
		const serve = f.start(["serve", "--port", "0"]);
		const first = await serve.waitFor(/^http:\/\/\S+\n/, "stdout", 20_000);
		const url = new URL(first.trim());
		const file = join(f.home, "server.json");
		const record = JSON.parse(readFileSync(file, "utf8")) as {
			token?: string;
			url?: string;
			pid?: number;
			configDir?: string;
		};
		expect(record.token).toBe(url.hash.replace("#token=", ""));
		expect(record.url).toBe(`${url.origin}/`);
		expect(record.pid).toBe(serve.child.pid);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(record.configDir).toBe(resolve(f.configDir));
		expect(runningServer(f.home)).toEqual({ url: `${url.origin}/`, token: record.token, configDir: record.configDir });
		const health = await fetch(new URL("/healthz", record.url));
		expect(health.status).toBe(200);

		serve.signal("SIGTERM");
		expect((await serve.waitForExit(20_000)).code).toBe(0);
		const after = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
		expect(after).toEqual({ token: record.token });
		expect(runningServer(f.home)).toBeUndefined();
	});
});
