import type { MessageOf } from "@omniloop/client";

/** The sentence a chat shows for a request or Task that did not end well; undefined when it did. */

export function describeRequestEnd(m: MessageOf<"request_end">): string | undefined {
	switch (m.status) {
		case "ok":
		case "aborted":
			return undefined;
		case "auth":
			return `The model refused the credential: ${m.error?.message ?? "authentication failed"}`;
		default:
			return `${REQUEST_END_TEXT[m.status]}: ${m.error?.message ?? "no reason given"}`;
	}
}

/** Each way a request can end badly, as a sentence's start ("ended failed" read wrong). */
const REQUEST_END_TEXT: Record<Exclude<MessageOf<"request_end">["status"], "ok" | "aborted" | "auth">, string> = {
	failed: "The model request failed",
	timeout: "The model request timed out",
	malformed: "The model's answer was malformed",
};

const DONE_TEXT: Record<string, string> = {
	user_abort: "The Task was stopped.",
	max_turns: "The Task reached its turn limit (maxTurns).",
	budget_exceeded: "The Task ran out of its token budget (maxSessionTokens).",
	loop_detected: "The Task was stopped: the agent repeated the same calls.",
	error: "The Task ended with an error",
};

export function describeDone(m: MessageOf<"done">): string | undefined {
	if (m.reason === "model_stop") return undefined;
	// Stopped by the host, not by the person (a server shutting down): it says who.
	if (m.reason === "user_abort" && m.error?.kind === "host_stop") return `The Task was stopped: ${m.error.message}.`;
	const text = DONE_TEXT[m.reason] ?? `The Task ended: ${m.reason}`;
	return m.reason === "error" && m.error !== undefined ? `${text}: ${m.error.message}` : text;
}
