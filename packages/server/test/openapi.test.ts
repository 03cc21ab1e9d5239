import { type RouteSpec, routes } from "@omniloop/client/wire";
import { expect, test } from "vitest";
import { startServer } from "./harness.js";

type Operation = {
	parameters: { name: string; in: string }[];
	requestBody?: { content: Record<string, { schema: { $ref: string } }> };
	responses: Record<
		string,
		{ content?: Record<string, { schema?: { $ref?: string }; "x-frame-data"?: { $ref: string } }> }
	>;
	security?: unknown[];
};
interface Document {
	openapi: string;
	paths: Record<string, Record<string, Operation>>;
	components: { schemas: Record<string, unknown> };
}

const COMPONENTS = "#/components/schemas/";

test("GET /openapi.json: every route served is in it, with its parameters, body and answers' schemas", async () => {
	const t = await startServer();
	expect((await fetch(`${t.server.origin}/openapi.json`)).status).toBe(401);
	const response = await t.api("/openapi.json");
	expect(response.status).toBe(200);
	const doc = (await response.json()) as Document;
	expect(doc.openapi).toBe("3.1.0");
	const resolves = (ref: string | undefined) =>
		ref?.startsWith(COMPONENTS) === true && doc.components.schemas[ref.slice(COMPONENTS.length)] !== undefined;

	const served = t.server.routes.map(({ method, path }) => `${method} ${path}`);
	expect(served.length).toBeGreaterThan(20);
	expect([...served].sort(), "the served routes are the route table's").toEqual(Object.keys(routes).sort());
	for (const route of served) {
		const [method = "", path = ""] = route.split(" ");
		const operation = doc.paths[path.replace(/:([A-Za-z]+)/g, "{$1}")]?.[method.toLowerCase()];
		expect(operation, route).toBeDefined();
		if (operation === undefined) continue;
		const spec: RouteSpec = routes[route as keyof typeof routes];
		const pathParams = [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
		expect(
			operation.parameters.filter((p) => p.in === "path").map((p) => p.name),
			route,
		).toEqual(pathParams);
		for (const name of Object.keys(spec.query?.shape ?? {})) {
			expect(
				operation.parameters.some((p) => p.in === "query" && p.name === name),
				`${route} ?${name}`,
			).toBe(true);
		}
		if (spec.body === undefined) expect(operation.requestBody, route).toBeUndefined();
		else expect(resolves(operation.requestBody?.content["application/json"]?.schema.$ref), `${route} body`).toBe(true);
		for (const [status, answer] of Object.entries(spec.answers)) {
			const content = operation.responses[status]?.content;
			if ("json" in answer)
				expect(resolves(content?.["application/json"]?.schema?.$ref), `${route} ${status}`).toBe(true);
			if ("sse" in answer)
				expect(resolves(content?.["text/event-stream"]?.["x-frame-data"]?.$ref), `${route} ${status}`).toBe(true);
			if ("empty" in answer) expect(content, `${route} ${status}`).toBeUndefined();
		}
		expect(resolves(operation.responses.default?.content?.["application/json"]?.schema?.$ref), `${route} errors`).toBe(
			true,
		);
		expect(operation.security === undefined, `${route} behind the token`).toBe(spec.token !== false);
	}
	// Every $ref anywhere in the document names a schema it holds.
	const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
	expect(refs.filter((ref) => !resolves(ref))).toEqual([]);
	const message = doc.components.schemas.OmniMessage as { oneOf?: unknown[]; anyOf?: unknown[] };
	expect((message.oneOf ?? message.anyOf)?.length).toBe(24);
});
