import { z } from "zod";
import { errorBody } from "./errors.js";
import { jsonValue, omniMessage } from "./messages.js";
import { type Answer, type RouteSpec, routes } from "./routes.js";
import { serverEvent, sessionSummary } from "./sessions.js";
import { workflowView } from "./workflows.js";

type JsonSchema = Record<string, unknown>;

/** Named once in `components.schemas` and referred to from everywhere else. */
const NAMED: Record<string, z.ZodType> = {
	ErrorBody: errorBody,
	JsonValue: jsonValue,
	OmniMessage: omniMessage,
	ServerEvent: serverEvent,
	SessionSummary: sessionSummary,
	WorkflowView: workflowView,
};

const COMPONENTS = "#/components/schemas/";

/** `/chat/sessions/:id` → `/chat/sessions/{id}`, and its parameters' names. */
function openApiPath(path: string): { path: string; params: string[] } {
	const params = [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1] as string);
	return { path: path.replace(/:([A-Za-z]+)/g, "{$1}"), params };
}

/** Gives every schema a route uses an id in one registry, so that zod writes each once. */
class Schemas {
	private readonly registry = z.registry<{ id: string }>();
	private readonly ids = new Map<z.ZodType, string>();

	constructor() {
		for (const [id, schema] of Object.entries(NAMED)) this.name(schema, id);
	}

	name(schema: z.ZodType, id: string): { $ref: string } {
		const known = this.ids.get(schema);
		if (known !== undefined) return { $ref: `${COMPONENTS}${known}` };
		this.ids.set(schema, id);
		this.registry.add(schema, { id });
		return { $ref: `${COMPONENTS}${id}` };
	}

	/** Each schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses), refs into `components.schemas`. */
	components(): Record<string, JsonSchema> {
		const { schemas } = z.toJSONSchema(this.registry, {
			target: "draft-2020-12",
			unrepresentable: "any",
			uri: (id) => `${COMPONENTS}${id}`,
		});
		const out: Record<string, JsonSchema> = {};
		for (const [id, schema] of Object.entries(schemas)) {
			const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
			out[id] = rest;
		}
		return out;
	}
}

/** `POST /chat/sessions/:id/steer` → `postChatSessionsIdSteer`. */
function operationId(route: string): string {
	const words = route
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((word) => word !== "");
	return words.map((word, i) => (i === 0 ? word : `${word[0]?.toUpperCase()}${word.slice(1)}`)).join("");
}

function content(answer: Answer, schemas: Schemas, id: string): JsonSchema | undefined {
	if ("empty" in answer) return undefined;
	if ("text" in answer) return { [answer.text]: { schema: { type: "string" } } };
	if ("json" in answer) return { "application/json": { schema: schemas.name(answer.json, id) } };
	// OpenAPI 3.1 has no schema for an event stream's frames: the `data` of each frame is named beside it.
	return {
		"text/event-stream": {
			schema: { type: "string", description: "Server-Sent Events (docs/protocol.md §6)" },
			"x-frame-data": schemas.name(answer.sse, id),
		},
	};
}

function parameters(spec: RouteSpec, params: string[], schemas: Schemas, id: string): JsonSchema[] {
	const out: JsonSchema[] = params.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
	for (const [where, object] of [
		["query", spec.query],
		["header", spec.headers],
	] as const) {
		for (const [name, schema] of Object.entries(object?.shape ?? {})) {
			const field = schema as z.ZodType;
			out.push({
				name,
				in: where,
				required: !field.safeParse(undefined).success,
				schema: schemas.name(field, `${id}_${where}_${name}`),
			});
		}
	}
	return out;
}

function operation(route: string, spec: RouteSpec, params: string[], schemas: Schemas): JsonSchema {
	const id = operationId(route);
	const responses: Record<string, JsonSchema> = {};
	for (const [status, answer] of Object.entries(spec.answers)) {
		const body = content(answer as Answer, schemas, `${id}_${status}`);
		responses[status] = { description: spec.summary, ...(body === undefined ? {} : { content: body }) };
	}
	const error = { "application/json": { schema: schemas.name(errorBody, "ErrorBody") } };
	responses.default = { description: "An error (docs/protocol.md §2)", content: error };
	return {
		operationId: id,
		summary: spec.summary,
		...(spec.token === false ? { security: [] } : {}),
		parameters: parameters(spec, params, schemas, id),
		...(spec.body === undefined
			? {}
			: {
					requestBody: {
						required: true,
						content: { "application/json": { schema: schemas.name(spec.body, `${id}_body`) } },
					},
				}),
		responses,
	};
}

/** The OpenAPI 3.1 document of the Runtime Server's routes (`GET /openapi.json`). */
export function openApiDocument(version: string): JsonSchema {
	const schemas = new Schemas();
	const paths: Record<string, Record<string, JsonSchema>> = {};
	for (const [route, spec] of Object.entries(routes) as [string, RouteSpec][]) {
		const [method = "", path = ""] = route.split(" ");
		const openApi = openApiPath(path);
		const item = paths[openApi.path] ?? {};
		item[method.toLowerCase()] = operation(route, spec, openApi.params, schemas);
		paths[openApi.path] = item;
	}
	return {
		openapi: "3.1.0",
		info: { title: "omniloop Runtime Server", version, description: "docs/protocol.md" },
		components: {
			securitySchemes: { token: { type: "http", scheme: "bearer" } },
			schemas: schemas.components(),
		},
		security: [{ token: [] }],
		paths,
	};
}
