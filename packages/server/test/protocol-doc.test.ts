import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { startServer } from "./harness.js";

const PROTOCOL = fileURLToPath(new URL("../../../docs/protocol.md", import.meta.url));

/** The routes docs/protocol.md's tables name: the first cell of a table row, `` `GET /path` ``. */
function documentedRoutes(): string[] {
	const rows = readFileSync(PROTOCOL, "utf8").matchAll(/^\| `(GET|POST|PUT|DELETE|PATCH) ([^`]+)` \|/gm);
	return [...rows].map(([, method, path]) => `${method} ${path}`);
}

test("every route the server serves is in docs/protocol.md, and every route there is served", async () => {
	const { server } = await startServer();
	const served = server.routes.map(({ method, path }) => `${method} ${path}`);
	const documented = documentedRoutes();
	expect(served.length).toBeGreaterThan(20);
	expect(
		served.filter((route) => !documented.includes(route)),
		"served but not documented",
	).toEqual([]);
	expect(
		documented.filter((route) => !served.includes(route)),
		"documented but not served",
	).toEqual([]);
	expect(new Set(documented).size, "a route documented twice").toBe(documented.length);
});
