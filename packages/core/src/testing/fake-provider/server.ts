import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../../messages/error-message.js";
import { anthropicWire } from "./dialects/anthropic.js";
import { googleWire } from "./dialects/google.js";
import { openaiChatWire } from "./dialects/openai-chat.js";
import { openaiResponsesWire } from "./dialects/openai-responses.js";
import { planStream, type StreamPlan } from "./faults.js";
import { asObject, asString, parseBody } from "./json.js";
import { findUnpairedCalls } from "./pairing.js";
import { replayPlan } from "./replay.js";
import type {
	FakeReplySource,
	ProviderApi,
	RecordedProviderRequest,
	ReplayConvention,
	ReplayOptions,
} from "./types.js";
import type { ErrorResponse, RenderContext, WireFormat } from "./wire.js";

export interface FakeProviderServerOptions {
	/** 0 (default) picks a free port. */
	port?: number;
	/** Default "127.0.0.1": loopback only. */
	host?: string;
}

type QueuedReply =
	| { kind: "scripted"; source: FakeReplySource }
	| { kind: "replay"; plan: StreamPlan; chunkDelayMs: number };

const WIRES: Record<ProviderApi, WireFormat> = {
	"openai-chat": openaiChatWire,
	"openai-responses": openaiResponsesWire,
	anthropic: anthropicWire,
	google: googleWire,
};

/** The API a path belongs to; the `/v1` prefix is optional, as base URLs differ between clients. */
function apiForPath(path: string): ProviderApi | undefined {
	if (/^(\/v1)?\/chat\/completions$/.test(path)) return "openai-chat";
	if (/^(\/v1)?\/responses$/.test(path)) return "openai-responses";
	if (/^(\/v1)?\/messages$/.test(path)) return "anthropic";
	if (path.includes(":streamGenerateContent")) return "google";
	return undefined;
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

/** A wait between writes; 0 still yields a macrotask so each write leaves on its own. */
function pause(ms: number): Promise<void> {
	return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

/** Writes and waits until the bytes reached the socket, or the response is gone. */
function write(response: ServerResponse, chunk: Buffer): Promise<void> {
	return new Promise((resolve) => {
		response.once("close", resolve);
		response.write(chunk, () => {
			response.off("close", resolve);
			resolve();
		});
	});
}

/** Waits until everything written so far (headers included) was handed to the OS. */
function flushed(response: ServerResponse): Promise<void> {
	const socket = response.socket;
	if (socket === null || socket.destroyed) return Promise.resolve();
	return new Promise((resolve) => socket.write(Buffer.alloc(0), () => resolve()));
}

function sendJson(response: ServerResponse, error: ErrorResponse): void {
	response.writeHead(error.status, { "content-type": "application/json", ...error.headers });
	response.end(JSON.stringify(error.body));
}

/**
 * A fake model provider over real HTTP, for testing model adapters through real sockets. It speaks
 * OpenAI Chat Completions, OpenAI Responses and Anthropic Messages streaming (and replays recorded
 * Gemini streams), answering each request with the next queued reply, and records every request.
 *
 * Contract: replies are taken strictly in arrival order, whatever the API; a request with no reply
 * left gets a 500 naming the API and the request number. Requests to other paths get a 404 and
 * neither take a reply nor are recorded. Call `close()` when done: it also ends stalled streams.
 */
export class FakeProviderServer {
	/** Every request that reached an API path, in arrival order. */
	readonly requests: RecordedProviderRequest[] = [];
	private readonly queue: QueuedReply[] = [];
	private readonly open = new Set<ServerResponse>();

	private constructor(
		private readonly server: Server,
		/** The base URL, e.g. "http://127.0.0.1:PORT"; API paths follow it ("/v1/messages"). */
		readonly url: string,
	) {
		server.on("request", (request: IncomingMessage, response: ServerResponse) => {
			this.open.add(response);
			response.on("close", () => this.open.delete(response));
			this.handle(request, response).catch((error: unknown) => {
				if (!response.headersSent) {
					sendJson(response, { status: 500, headers: {}, body: { error: { message: errorMessage(error) } } });
				} else response.destroy();
			});
		});
	}

	static async start(options: FakeProviderServerOptions = {}): Promise<FakeProviderServer> {
		const server = createServer();
		const host = options.host ?? "127.0.0.1";
		await new Promise<void>((resolve, reject) => {
			server.once("error", reject);
			server.listen(options.port ?? 0, host, () => {
				server.off("error", reject);
				resolve();
			});
		});
		const { port } = server.address() as AddressInfo;
		const urlHost = host.includes(":") ? `[${host}]` : host;
		return new FakeProviderServer(server, `http://${urlHost}:${port}`);
	}

	/** The recorded requests whose tool calls break pairing (see `findUnpairedCalls`). */
	get requestsWithUnpairedCalls(): RecordedProviderRequest[] {
		return this.requests.filter((request) => request.unpairedToolCalls.length > 0);
	}

	/** How many queued replies no request has taken yet. */
	get pendingReplies(): number {
		return this.queue.length;
	}

	/** Queues replies; each request takes the next one. */
	enqueue(...replies: FakeReplySource[]): void {
		for (const source of replies) this.queue.push({ kind: "scripted", source });
	}

	/**
	 * Queues a reply that sends recorded payload lines verbatim (one `*.chunks.txt` file split on
	 * "\n"), framed by `convention`, whatever the request's API. Empty lines are skipped.
	 */
	replayRecorded(lines: readonly string[], convention: ReplayConvention, options: ReplayOptions = {}): void {
		this.queue.push({
			kind: "replay",
			plan: replayPlan(lines, convention, options),
			chunkDelayMs: options.chunkDelayMs ?? 0,
		});
	}

	/** Stops listening and ends every connection, stalled streams included. */
	async close(): Promise<void> {
		for (const response of this.open) response.destroy();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const path = (request.url ?? "/").split("?")[0] ?? "/";
		const rawBody = await readBody(request);
		const api = request.method === "POST" ? apiForPath(path) : undefined;
		if (api === undefined) {
			const message = `fake provider: no API at ${request.method} ${path} (POST /v1/chat/completions, /v1/responses, /v1/messages or a :streamGenerateContent path)`;
			sendJson(response, { status: 404, headers: {}, body: { error: { message, type: "not_found_error" } } });
			return;
		}
		const body = parseBody(rawBody);
		const recorded: RecordedProviderRequest = {
			api,
			path,
			headers: request.headers,
			body,
			rawBody,
			unpairedToolCalls: findUnpairedCalls(api, body),
		};
		this.requests.push(recorded);
		const context: RenderContext = {
			request: recorded,
			number: this.requests.length,
			model: asString(asObject(body)?.model) ?? "fake-model",
		};
		const wire = WIRES[api];
		const fail = (status: number, message: string) =>
			sendJson(response, wire.errorResponse({ kind: "status", status, message }, context));

		if (body === null) return fail(400, "fake provider: the request body is not valid JSON");
		// As the providers do (Anthropic: "tool_use ids were found without tool_result blocks"): a
		// request that breaks tool-call pairing is refused, and it takes no queued reply.
		if (recorded.unpairedToolCalls.length > 0) {
			return fail(
				400,
				`fake provider: ${api} request #${context.number} breaks tool-call pairing (calls ${recorded.unpairedToolCalls.join(", ")}): each call needs its output, right after its turn`,
			);
		}
		const next = this.queue.shift();
		if (next === undefined) {
			return fail(500, `fake provider: no reply queued for ${api} request #${context.number} (POST ${path})`);
		}
		if (next.kind === "replay") return this.stream(response, next.plan, next.chunkDelayMs, {});

		let plan: StreamPlan;
		let chunkDelayMs = 0;
		try {
			const reply = typeof next.source === "function" ? next.source(recorded, context.number - 1) : next.source;
			if (reply.fault?.kind === "status") return sendJson(response, wire.errorResponse(reply.fault, context));
			plan = planStream(wire.render(reply, context), reply.fault);
			chunkDelayMs = reply.chunkDelayMs ?? 0;
		} catch (error) {
			return fail(500, `fake provider: ${api} request #${context.number}: ${errorMessage(error)}`);
		}
		return this.stream(response, plan, chunkDelayMs, wire.headers(context));
	}

	private async stream(
		response: ServerResponse,
		plan: StreamPlan,
		chunkDelayMs: number,
		headers: Record<string, string>,
	): Promise<void> {
		response.writeHead(200, {
			"content-type": "text/event-stream; charset=utf-8",
			"cache-control": "no-cache",
			...headers,
		});
		response.flushHeaders();
		let gone = false;
		response.once("close", () => {
			gone = true;
		});
		for (const [index, chunk] of plan.writes.entries()) {
			if (index > 0) await pause(chunkDelayMs);
			if (gone) return;
			await write(response, chunk);
		}
		if (gone) return;
		if (plan.ending === "end") response.end();
		else if (plan.ending === "destroy") {
			// Let what was written leave first, so the client sees the events and then the cut.
			await flushed(response);
			response.socket?.destroy();
		}
		// "stall": nothing more; the response stays in `open` until the client leaves or `close()`.
	}
}
