import { ApiError, type Frame, type OmniloopClient } from "@omniloop/client";
import type {
	ConfirmationRequired,
	InstructionFileInfo,
	ModelMessage,
	OmniMessage,
	RunOptions,
	ToolCall,
} from "@omniloop/core";

/**
 * A Session the local server hosts, driven over HTTP and SSE (docs/protocol.md): what the chat
 * needs of a core Session. Its Trace is the server's; a browser watching the same Session sees
 * every message live and may answer its approvals too (the first answer wins).
 */
export class RemoteSession {
	private readonly params: { params: { id: string } };

	constructor(
		private readonly client: OmniloopClient,
		readonly id: string,
		readonly instructions: readonly InstructionFileInfo[],
	) {
		this.params = { params: { id } };
	}

	/**
	 * A Task: its messages as the server streams them. A call that needs a person is put to
	 * `options.approve` (the person at this terminal) and the answer sent back; an answer given
	 * elsewhere first (the web app) voids the question here. Aborting `options.signal` aborts the
	 * Task on the server, and the stream goes on to its `done`.
	 */
	async *run(input: readonly ModelMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
		const messages = input.flatMap((m) =>
			m.type === "user_text" ? [{ type: "user_text" as const, text: m.text }] : [],
		);
		const body = { messages, ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }) };
		yield* this.drive(this.client.stream("POST /chat/sessions/:id/messages", { ...this.params, body }), options);
	}

	/** A manual compaction's messages; aborting `options.signal` stops it on the server. */
	async *compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
		yield* this.drive(this.client.stream("POST /chat/sessions/:id/compact", this.params), options);
	}

	/**
	 * The stream's messages, its approvals asked here. Aborting aborts the work on the server, not
	 * the stream: it goes on to what the server says last (a `done`).
	 */
	private async *drive(
		frames: AsyncGenerator<Frame<OmniMessage>>,
		options: RunOptions,
	): AsyncGenerator<OmniMessage, void, undefined> {
		const questions = new Questions(this, options);
		const abort = () => void this.client.call("POST /chat/sessions/:id/abort", this.params).catch(() => undefined);
		options.signal?.addEventListener("abort", abort, { once: true });
		try {
			for await (const { data: message } of frames) {
				questions.see(message);
				yield message;
			}
		} finally {
			options.signal?.removeEventListener("abort", abort);
			questions.end();
		}
	}

	/** Sends a person's answer; an answer another viewer gave first (409) is theirs to keep. */
	async answer(correlationId: string, decision: "allow" | "deny"): Promise<void> {
		try {
			await this.client.call("POST /chat/sessions/:id/ask-user-response", {
				...this.params,
				body: { correlationId, decision },
			});
		} catch (error) {
			if (!(error instanceof ApiError && error.code === "already_answered")) throw error;
		}
	}

	/** A steer for the running Task; false when none runs (the line becomes the next message). */
	async steer(text: string): Promise<boolean> {
		return (await this.client.call("POST /chat/sessions/:id/steer", { ...this.params, body: { text } })).accepted;
	}

	skipReconnectWait(): boolean {
		void this.client.call("POST /chat/sessions/:id/retry-now", this.params).catch(() => undefined);
		return true;
	}

	async generateTitle(options: { signal?: AbortSignal } = {}): Promise<string> {
		const signal = options.signal === undefined ? {} : { signal: options.signal };
		return (await this.client.call("POST /chat/sessions/:id/title", { ...this.params, ...signal })).title;
	}

	/** Renames it on the server (PATCH), so the web app's list follows; resolves with the title as saved. */
	async rename(title: string): Promise<string> {
		const saved = await this.client.call("PATCH /chat/sessions/:id", { ...this.params, body: { title } });
		// A summary's title is null only while none was given; this one was just given.
		return saved.title ?? title;
	}

	/** Nothing to close here: the server keeps the Session (and its Trace) open. */
	async close(): Promise<void> {}

	/** Deletes the Session on the server (one left without a message). */
	async discard(): Promise<void> {
		await this.client.call("DELETE /chat/sessions/:id", this.params).catch(() => undefined);
	}
}

/**
 * The approvals of one stream, asked one at a time in the order announced (as the engine asks,
 * docs/protocol.md §5.2) while the stream goes on: a later call the policy allows still shows.
 */
class Questions {
	private queue: Promise<void> = Promise.resolve();
	private readonly open = new Map<string, AbortController>();
	private ended = false;

	constructor(
		private readonly session: RemoteSession,
		private readonly options: RunOptions,
	) {}

	see(message: OmniMessage): void {
		if (message.type === "confirmation_required") {
			const asked = new AbortController();
			this.open.set(message.correlationId, asked);
			this.queue = this.queue.then(() => this.ask(message, asked));
		} else if (message.type === "approval_decision" && message.correlationId !== undefined) {
			// Decided (here or in another viewer): the question is over.
			this.open.get(message.correlationId)?.abort();
		} else if (message.type === "abort" || message.type === "done") {
			for (const asked of this.open.values()) asked.abort();
		}
	}

	end(): void {
		this.ended = true;
		for (const asked of this.open.values()) asked.abort();
	}

	private async ask(question: ConfirmationRequired, asked: AbortController): Promise<void> {
		const { approve, signal } = this.options;
		if (asked.signal.aborted || this.ended) return;
		const signals = signal === undefined ? [asked.signal] : [asked.signal, signal];
		const call: ToolCall = {
			type: "tool_call",
			id: question.id,
			ts: question.ts,
			seq: question.seq,
			callId: question.callId,
			name: question.name,
			arguments: question.arguments,
			...(question.origin === undefined ? {} : { origin: question.origin }),
		};
		const over = AbortSignal.any(signals);
		try {
			const answer =
				approve === undefined
					? "deny"
					: await approve(call, {
							signal: over,
							correlationId: question.correlationId,
							...(question.unsandboxed === undefined ? {} : { unsandboxed: question.unsandboxed }),
						});
			// A question voided (answered elsewhere, the Task aborted) is not answered from here.
			if (!over.aborted)
				await this.session.answer(question.correlationId, typeof answer === "string" ? answer : answer.decision);
		} catch {
			// A refused or lost answer: the server still waits, and another viewer may answer.
		} finally {
			this.open.delete(question.correlationId);
		}
	}
}
