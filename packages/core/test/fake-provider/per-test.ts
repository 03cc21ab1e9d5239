import { afterEach, beforeEach } from "vitest";
import { FakeProviderServer } from "../../src/testing.js";

/** A fake provider for each test of the file: started before it (handed to `started`), closed after it. */
export function fakeProviderPerTest(started: (server: FakeProviderServer) => void): void {
	let server: FakeProviderServer | undefined;
	beforeEach(async () => {
		server = await FakeProviderServer.start();
		started(server);
	});
	afterEach(async () => {
		await server?.close();
	});
}
