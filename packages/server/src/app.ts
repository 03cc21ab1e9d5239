import type { Socket } from "node:net";
import { Hono } from "hono";
import { browserHeaders } from "./auth/browser-headers.js";
import { jsonBodyGuard, originGuard, tokenGuard } from "./auth/guard.js";
import { bodyLimit } from "./body-limit.js";
import { toHttpError } from "./error-handler.js";
import { HttpError } from "./errors.js";
import { adoptSessions } from "./routes/adopt.js";
import { agentRoutes } from "./routes/agents.js";
import { confirmationRoutes } from "./routes/confirmations.js";
import { credentialRoutes } from "./routes/credentials.js";
import { fileRoutes } from "./routes/files.js";
import { metricsRoutes } from "./routes/metrics.js";
import { openApiRoutes } from "./routes/openapi.js";
import { pageRoutes } from "./routes/pages.js";
import { sessionRoutes } from "./routes/sessions.js";
import { streamRoutes } from "./routes/streams.js";
import { taskRoutes } from "./routes/tasks.js";
import { usageRoutes } from "./routes/usage.js";
import { webAppRoutes } from "./routes/web-app.js";
import { workflowRoutes } from "./routes/workflows.js";
import type { AppEnv, ServerState } from "./server-state.js";

export interface AppOptions {
	allowedHosts: readonly string[];
	bodyLimitBytes: number;
	demo: () => boolean;
	/** Called for every request the token guard let through, with its socket (see net/socket-limits.ts). */
	authenticated?: (socket: Socket) => void;
}

/**
 * The routes, behind their guards: the browser headers, Host and Origin and JSON bodies on every
 * route, the token on all but the page and its assets.
 */
export function buildApp(state: ServerState, options: AppOptions): Hono<AppEnv> {
	const app = new Hono<AppEnv>();
	app.onError((error, c) => {
		const httpError = toHttpError(error);
		if (httpError.code === "internal") state.host.report(error);
		return c.json(httpError.toJSON(), httpError.status);
	});
	app.notFound((c) => c.json(new HttpError("not_found", `no route ${c.req.method} ${c.req.path}`).toJSON(), 404));
	app.use(browserHeaders());
	app.use(async (c, next) => {
		const started = performance.now();
		await next();
		state.metrics.request(c.req.method, c.res.status, (performance.now() - started) / 1000);
	});
	app.use(originGuard(options.allowedHosts));
	app.use(jsonBodyGuard());
	app.use(bodyLimit(options.bodyLimitBytes));
	pageRoutes(app, options.demo);
	webAppRoutes(app);
	app.use(tokenGuard(state.token));
	app.use(async (c, next) => {
		options.authenticated?.(c.env.incoming.socket);
		await next();
	});
	openApiRoutes(app);
	adoptSessions(app, state);
	sessionRoutes(app, state);
	taskRoutes(app, state);
	fileRoutes(app, state);
	streamRoutes(app, state);
	confirmationRoutes(app, state);
	usageRoutes(app, state);
	agentRoutes(app, state);
	credentialRoutes(app, state);
	metricsRoutes(app, state);
	workflowRoutes(app, state);
	return app;
}
