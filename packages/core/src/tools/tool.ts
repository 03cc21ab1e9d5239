import { z } from "zod";
import type { JsonObject } from "../messages/omni-message.js";
import type { ToolSpec } from "../model/model-adapter.js";

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
	/** Fires when the Task is aborted or the tool's time is up; a tool should stop promptly. */
	signal: AbortSignal;
	callId: string;
	/** The Session's workspace: file tools never reach outside it. */
	workspaceDir: string;
	/** Reports progress; each call becomes a `tool_progress` event. Must not be called after execute settles. */
	progress(text: string): void;
}

/** What `execute` may return: text for the model, or JSON that is serialized for it. */
export type ToolResult = string | JsonObject;

/**
 * A tool the model can call.
 *
 * Contract for `execute`: it may throw (the message becomes an `error` output the model sees; tool
 * errors are never retried); it gets arguments already checked against `parameters`; it should
 * honour `ctx.signal`, but the engine never waits on a tool after an abort.
 */
export interface Tool<Args = unknown> {
	readonly name: string;
	readonly description: string;
	readonly parameters: z.ZodType<Args>;
	/** Read-only tools are allowed by the default approval policy and may start while the model streams. */
	readonly readOnly: boolean;
	execute(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

export interface ToolDefinition<Shape extends z.ZodRawShape> {
	name: string;
	description: string;
	parameters: z.ZodObject<Shape>;
	readOnly?: boolean;
	execute(args: z.infer<z.ZodObject<Shape>>, ctx: ToolContext): Promise<ToolResult>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Makes a tool from a zod object schema. Throws a TypeError naming the problem for a bad definition. */
export function tool<Shape extends z.ZodRawShape>(
	definition: ToolDefinition<Shape>,
): Tool<z.infer<z.ZodObject<Shape>>> {
	if (!TOOL_NAME.test(definition.name)) {
		throw new TypeError(`tool name "${definition.name}" must match ${TOOL_NAME} (the providers' rule)`);
	}
	if (!(definition.parameters instanceof z.ZodObject)) {
		throw new TypeError(`tool "${definition.name}": parameters must be a zod object schema (z.object({...}))`);
	}
	return {
		name: definition.name,
		description: definition.description,
		parameters: definition.parameters,
		readOnly: definition.readOnly ?? false,
		execute: definition.execute,
	};
}

/** The tool as the model sees it: name, description and the JSON Schema of its arguments. */
export function toolSpec(t: Tool): ToolSpec {
	const schema = z.toJSONSchema(t.parameters, { io: "input" }) as JsonObject;
	delete schema.$schema;
	return { name: t.name, description: t.description, inputSchema: schema };
}
