import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { readServerToken, ServerTokenFileError } from "../src/index.js";
import { bearerApi } from "./bearer-api.js";
import { startServer, tempDirs } from "./harness.js";

const model = () => new ScriptedModel([]);

describe("the server's token", () => {
	it("is kept in server.json (0600) and reused by the next start on the same home, which accepts it", async () => {
		const dirs = tempDirs();
		const first = await startServer({ model: model(), token: undefined }, dirs);
		expect(statSync(join(dirs.home, "server.json")).mode & 0o777).toBe(0o600);
		expect(readServerToken(dirs.home)).toBe(first.server.token);
		await first.server.close();
		const second = await startServer({ model: model(), token: undefined }, dirs);
		expect(second.server.token).toBe(first.server.token);
		expect((await bearerApi(second.server.origin, first.server.token)("/chat/sessions")).status).toBe(200);
	});

	it("OMNILOOP_TOKEN wins over the kept one and leaves server.json as it was", async () => {
		const dirs = tempDirs();
		const first = await startServer({ model: model(), token: undefined }, dirs);
		await first.server.close();
		const second = await startServer({ model: model(), token: undefined, env: { OMNILOOP_TOKEN: "from-env" } }, dirs);
		expect(second.server.token).toBe("from-env");
		expect(readServerToken(dirs.home)).toBe(first.server.token);
	});

	it("--new-token replaces the kept one: the old token is refused, the new one is kept", async () => {
		const dirs = tempDirs();
		const first = await startServer({ model: model(), token: undefined }, dirs);
		await first.server.close();
		const second = await startServer({ model: model(), token: undefined, newToken: true }, dirs);
		expect(second.server.token).not.toBe(first.server.token);
		expect(readServerToken(dirs.home)).toBe(second.server.token);
		expect(statSync(join(dirs.home, "server.json")).mode & 0o777).toBe(0o600);
		expect((await bearerApi(second.server.origin, first.server.token)("/chat/sessions")).status).toBe(401);
		expect((await second.api("/chat/sessions")).status).toBe(200);
	});

	it("a server.json without a token stops the start with an error naming the file; the file is left as it was", async () => {
		const dirs = tempDirs();
		const file = join(dirs.home, "server.json");
		for (const [text, problem] of [
			["{not json", "not JSON"],
			['{"token": 7}', 'no string "token"'],
		] as const) {
			writeFileSync(file, text);
			const start = startServer({ model: model(), token: undefined }, dirs);
			await expect(start).rejects.toBeInstanceOf(ServerTokenFileError);
			await expect(start).rejects.toThrow(`${file}: ${problem}`);
			expect(readFileSync(file, "utf8")).toBe(text);
		}
	});
});
