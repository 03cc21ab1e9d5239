import { createParser } from "eventsource-parser";

/** One Server-Sent Events frame: a Session's message carries its seq as `id`; a server event none. */
export interface Frame<T> {
	id: string | undefined;
	data: T;
}

/** The frames of one SSE body as they arrive, `data` as JSON; ends when the body does. */
export async function* readFrames<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame<T>> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	const parsed: Frame<T>[] = [];
	const parser = createParser({ onEvent: (event) => parsed.push({ id: event.id, data: JSON.parse(event.data) as T }) });
	try {
		for (;;) {
			const { value, done } = await reader.read();
			if (done) return;
			parser.feed(decoder.decode(value, { stream: true }));
			yield* parsed.splice(0);
		}
	} finally {
		// A reader that stops early (a break, an abort) lets the connection go.
		await reader.cancel().catch(() => {});
	}
}

export interface ResumeOptions {
	/** Resume after this frame id (a seq); without it, what the route gives with no resume point. */
	lastEventId?: string;
	signal?: AbortSignal;
	/** How many reconnects in a row may fail before the error is thrown (default 8). */
	retries?: number;
}

/** The wait before the k-th reconnect in a row: 250 ms doubling, at most 5 s. */
const backoff = (k: number) => Math.min(250 * 2 ** k, 5000);

/**
 * A stream that survives drops: when the connection ends or breaks (a network drop, a server
 * restart, a viewer cut off for falling behind), it is opened again with `Last-Event-ID` set to
 * the last frame id seen, so the server replays from there and nothing is lost or comes twice
 * (docs/protocol.md §5.7). An error answer to a reconnect (a 404: the Session is gone) is thrown;
 * so is the last of `retries` failed reconnects in a row. It ends only when `signal` fires or the
 * reader stops.
 */
export async function* resumingFrames<T>(
	open: (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<Response>,
	readable: (error: unknown) => boolean,
	options: ResumeOptions = {},
): AsyncGenerator<Frame<T>> {
	let lastEventId = options.lastEventId;
	let failures = 0;
	for (;;) {
		try {
			const response = await open(lastEventId, options.signal);
			for await (const frame of readFrames<T>(response.body as ReadableStream<Uint8Array>)) {
				failures = 0;
				if (frame.id !== undefined) lastEventId = frame.id;
				yield frame;
			}
		} catch (error) {
			if (options.signal?.aborted || !readable(error) || failures >= (options.retries ?? 8)) throw error;
		}
		if (options.signal?.aborted) return;
		await wait(backoff(failures++), options.signal);
	}
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(done, ms);
		function done() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", done);
			resolve();
		}
		signal?.addEventListener("abort", done, { once: true });
	});
}
