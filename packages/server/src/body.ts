import type { Context } from "hono";
import { z } from "zod";
import { HttpError } from "./errors.js";

/**
 * The request's JSON body checked against `schema`. A bad body is `invalid_body` naming the first
 * field at fault (`text: expected string`), so a client can fix it without reading the source.
 */
export async function readBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
	let raw: string;
	try {
		raw = await c.req.text();
	} catch (error) {
		if (error instanceof HttpError) throw error;
		throw new HttpError("invalid_body", "the request body could not be read");
	}
	let parsed: unknown = {};
	if (raw.trim() !== "") {
		try {
			parsed = JSON.parse(raw);
		} catch {
			throw new HttpError("invalid_body", "the body is not valid JSON");
		}
	}
	const result = schema.safeParse(parsed);
	if (!result.success) {
		const issue = result.error.issues[0];
		const field = issue === undefined || issue.path.length === 0 ? "body" : issue.path.join(".");
		throw new HttpError("invalid_body", `${field}: ${issue?.message ?? "invalid"}`);
	}
	return result.data;
}

/** A query parameter that must be a non-negative integer when present. */
export function intQuery(c: Context, name: string): number | undefined {
	const value = c.req.query(name);
	if (value === undefined || value === "") return undefined;
	if (!/^\d+$/.test(value)) throw new HttpError("invalid_body", `${name}: expected a non-negative integer`);
	return Number(value);
}

const NO_FIELDS = z.object({}).strict();

/**
 * A route that takes no body: none, an empty one or `{}` — a field in it is refused (400 naming
 * it), as on every other route, and the body limit holds for it too.
 */
export async function noBody(c: Context): Promise<void> {
	await readBody(c, NO_FIELDS);
}
