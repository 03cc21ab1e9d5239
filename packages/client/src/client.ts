import { ApiError, apiError, ConnectionError, shownUrl } from "./errors.js";
import type { InputArgs, JsonRoute, RouteAnswer, RouteFrame, RouteInput, StreamRoute } from "./route-types.js";
import { type Frame, type ResumeOptions, readFrames, resumingFrames } from "./sse.js";
import type { RouteName } from "./wire/routes.js";
import type { SessionSearch } from "./wire/sessions.js";

export interface ClientOptions {
	/** The server's origin, `http://127.0.0.1:4317`; "" (the default) for the page's own. */
	baseUrl?: string;
	/** The Bearer token, or a function read at each call (a browser tab's token can change). */
	token?: string | (() => string | undefined);
	/** The fetch to call with (default the global one): a host's own, to see each answer. */
	fetch?: typeof fetch;
}

/**
 * A typed client of the Runtime Server: `call("POST /chat/sessions/:id/steer", { params: { id },
 * body: { text } })` sends what the route table says the route reads and answers what it says it
 * answers. An error answer is an ApiError, no answer at all a ConnectionError.
 */
export class OmniloopClient {
	/** The server's origin as given, without a trailing slash ("" for the page's own). */
	readonly baseUrl: string;
	private readonly fetch: typeof fetch;

	constructor(private readonly options: ClientOptions = {}) {
		this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
		if (/^[a-z][a-z\d+.-]*:\/\/[^/]*@/i.test(this.baseUrl)) {
			// fetch refuses such a URL, and its error repeats the password: say so here, without it.
			throw new TypeError(
				`baseUrl ${shownUrl(this.baseUrl)}: a user name or password in the URL is not sent; give the token as \`token\``,
			);
		}
		this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
	}

	/** The route's JSON answer (undefined for a 204). */
	async call<R extends JsonRoute>(route: R, ...[input]: InputArgs<R>): Promise<RouteAnswer<R>> {
		const response = await this.request(route, input as RouteInput<R> | undefined);
		if (response.status === 204) return undefined as RouteAnswer<R>;
		return (await response.json()) as RouteAnswer<R>;
	}

	/**
	 * `GET /chat/sessions?q=`: the Sessions whose title or messages hold `q`, each with where. The
	 * route answers a plain list without `q` and a search with it; only a search counts its scan.
	 */
	async searchSessions(q: string, options: { signal?: AbortSignal } = {}): Promise<SessionSearch> {
		const answer = await this.call("GET /chat/sessions", { query: { q }, ...options });
		if ("textsScanned" in answer) return answer;
		throw new TypeError(
			`GET /chat/sessions?q= at ${this.baseUrl || "this page's server"} answered a list, not a search`,
		);
	}

	/**
	 * `PATCH /chat/sessions/:id { model }`: the Session's next Tasks run on `model`, a model's name
	 * of omniloop.yaml (`GET /agents` lists them as `models`). Throws (400) for a name not
	 * configured, (409 `session_busy`) while a Task runs. Answers the Session's summary.
	 */
	setSessionModel(sessionId: string, model: string): Promise<RouteAnswer<"PATCH /chat/sessions/:id">> {
		return this.call("PATCH /chat/sessions/:id", { params: { id: sessionId }, body: { model } });
	}

	/**
	 * The route's event stream, frame by frame. A GET stream resumes after a drop (sse.ts); a POST
	 * one (a Task's, a compaction's) is read once: sending it again would start new work.
	 */
	stream<R extends StreamRoute>(
		route: R,
		input: RouteInput<R> | undefined,
		options: ResumeOptions = {},
	): AsyncGenerator<Frame<RouteFrame<R>>> {
		const signal = input?.signal ?? options.signal;
		const loose = input as LooseInput | undefined;
		const open = (lastEventId: string | undefined) =>
			this.send(route, {
				...loose,
				...(signal === undefined ? {} : { signal }),
				headers: {
					accept: "text/event-stream",
					...loose?.headers,
					...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
				},
			});
		if (!route.startsWith("GET ")) {
			return (async function* () {
				const response = await open(options.lastEventId);
				yield* readFrames<RouteFrame<R>>(response.body as ReadableStream<Uint8Array>);
			})();
		}
		// A refused or missing thing stays so: only a drop is retried, not an error answer.
		const retried = (error: unknown) => !(error instanceof ApiError);
		return resumingFrames<RouteFrame<R>>(open, retried, { ...options, ...(signal === undefined ? {} : { signal }) });
	}

	/** The route's answer as it came, once it is a success; an error answer is thrown as an ApiError. */
	request<R extends RouteName>(route: R, input: RouteInput<R> | undefined): Promise<Response> {
		return this.send(route, input as LooseInput | undefined);
	}

	private async send(route: string, input: LooseInput | undefined): Promise<Response> {
		const [method = "GET", path = "/"] = route.split(" ");
		const url = `${this.baseUrl}${fillPath(path, input?.params)}${queryString(input?.query)}`;
		const token = typeof this.options.token === "function" ? this.options.token() : this.options.token;
		const body = input?.body;
		let response: Response;
		try {
			response = await this.fetch(url, {
				method,
				credentials: "omit",
				headers: {
					...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
					...(body === undefined ? {} : { "content-type": "application/json" }),
					...input?.headers,
				},
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
				...(input?.signal === undefined ? {} : { signal: input.signal }),
			});
		} catch (error) {
			if (input?.signal?.aborted) throw error;
			throw new ConnectionError(shownUrl(url), { cause: error });
		}
		if (!response.ok) throw await apiError(response, route, shownUrl(url));
		return response;
	}
}

/** A route's input as the request is made from it, whatever the route. */
interface LooseInput {
	params?: Record<string, string>;
	body?: unknown;
	query?: Record<string, unknown>;
	headers?: Record<string, string>;
	signal?: AbortSignal;
}

/** `/chat/sessions/:id` with `{ id }`: each parameter encoded into its segment. */
function fillPath(path: string, params: Record<string, string> | undefined): string {
	return path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
		const value = params?.[name];
		if (value === undefined) throw new TypeError(`${path}: no value for the path parameter ${name}`);
		return encodeURIComponent(value);
	});
}

function queryString(query: Record<string, unknown> | undefined): string {
	const search = new URLSearchParams();
	for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
	const text = search.toString();
	return text === "" ? "" : `?${text}`;
}
