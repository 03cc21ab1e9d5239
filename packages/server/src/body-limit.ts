import type { MiddlewareHandler } from "hono";
import { bodyLimit as readingBodyLimit } from "hono/body-limit";
import { HttpError } from "./errors.js";
import type { AppEnv } from "./server-state.js";

/**
 * Refuses a body over `maxBytes` with 413 `payload_too_large`. A body that states its length is
 * judged by the header, read off Node's request: hono's bodyLimit asks for `c.req.raw.body`, which
 * builds a whole web Request and stream around the request (a tenth of a Task start's CPU), and the
 * route then reads the body through that stream instead of straight from the socket. A chunked
 * body, whose length is known only once read, is still counted by hono's as it reads.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
	const tooLarge = (): never => {
		throw new HttpError("payload_too_large", `the body is larger than ${maxBytes} bytes`);
	};
	const reading = readingBodyLimit({ maxSize: maxBytes, onError: tooLarge });
	return async (c, next) => {
		const { method, headers } = c.env.incoming;
		if (method === "GET" || method === "HEAD") return next();
		const length = headers["content-length"];
		if (length !== undefined && headers["transfer-encoding"] === undefined) {
			if (Number(length) > maxBytes) tooLarge();
			return next();
		}
		return reading(c, next);
	};
}
