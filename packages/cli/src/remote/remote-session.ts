import type {
	ConfirmationRequired,
	InstructionFileInfo,
	ModelMessage,
	OmniMessage,
	RunOptions,
	ToolCall,
} from "@omniloop/core";
import { type ServerClient, ServerRequestError } from "./server-client.js";

/**
 * A Session the local server hosts, driven over HTTP and SSE (docs/protocol.md): what the chat
 * needs of a core Session. Its Trace is the server's; a browser watching the same Session sees
 * every message live and may answer its approvals too (the first answer wins).
 */
export class RemoteSession {
	constructor(
		private readonly client: ServerClient,
		readonly id: string,
		readonly instructions: readonly InstructionFileInfo[],
	) {}

	get url(): string {
		return this.client.url;
	}

	/**
	 * A Task: its messages as the server streams them. A call that needs a person is put to
	 * `options.approve` (the person at this terminal) and the answer sent back; an answer given
	 * elsewhere first (the web app) voids the question here. Aborting `options.signal` aborts the
	 * Task on the server, and the stream goes on to its `done`.
	 */
	async *run(input: readonly ModelMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
		const messages = input.flatMap((m) => (m.type === "user_text" ? [{ type: "user_text", text: m.text }] : []));
		const body = { messages, ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }) };
		yield* this.drive(`/chat/sessions/${this.id}/messages`, body, options);
	}

	/** A manual compaction's messages; aborting `options.signal` stops it on the server. */
	async *compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
		yield* this.drive(`/chat/sessions/${this.id}/compact`, {}, options);
	}

	private async *drive(path: string, body: unknown, options: RunOptions): AsyncGenerator<OmniMessage, void, undefined> {
		const questions = new Questions(this, options);
		const abort = () => void this.post("abort").catch(() => undefined);
		options.signal?.addEventListener("abort", abort, { once: true });
		try {
			for await (const message of this.client.stream(path, body)) {
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
			await this.post("ask-user-response", { correlationId, decision });
		} catch (error) {
			if (!(error instanceof ServerRequestError && error.code === "already_answered")) throw error;
		}
	}

	/** A steer for the running Task; false when none runs (the line becomes the next message). */
	async steer(text: string): Promise<boolean> {
		return (await this.post<{ accepted: boolean }>("steer", { text })).accepted;
	}

	skipReconnectWait(): boolean {
		void this.post("retry-now").catch(() => undefined);
		return true;
	}

	async generateTitle(options: { signal?: AbortSignal } = {}): Promise<string> {
		const path = `/chat/sessions/${this.id}/title`;
		return (await this.client.json<{ title: string }>("POST", path, undefined, options.signal)).title;
	}

	/** Renames it on the server (PATCH), so the web app's list follows; resolves with the title as saved. */
	async rename(title: string): Promise<string> {
		return (await this.client.json<{ title: string }>("PATCH", `/chat/sessions/${this.id}`, { title })).title;
	}

	/** Nothing to close here: the server keeps the Session (and its Trace) open. */
	async close(): Promise<void> {}

	/** Deletes the Session on the server (one left without a message). */
	async discard(): Promise<void> {
		await this.client.json("DELETE", `/chat/sessions/${this.id}`).catch(() => undefined);
	}

	private post<T>(route: string, body?: unknown): Promise<T> {
		return this.client.json<T>("POST", `/chat/sessions/${this.id}/${route}`, body ?? {});
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
