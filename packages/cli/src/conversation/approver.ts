import type { ApprovalAnswer, ApproveFn, ToolCall } from "@omniloop/core";
import type { AlwaysAllowed } from "@omniloop/core/internal";
import type { Screen } from "../terminal/screen.js";

/** A person's answer to an approval: allow, deny, or allow this tool for the rest of the Session. */
export type Answer = ApprovalAnswer | "always";

/** Asks a person about one call; `undefined` when nobody can answer (input ended, or `signal` fired). */
export interface ApprovalPrompt {
	/** `warning`, when set, is shown with the question (why this call is asked despite --yes). */
	decide(call: ToolCall, signal: AbortSignal, warning?: string): Promise<Answer | undefined>;
}

/** y / yes, n / no, a / always; anything else is asked again. */
export function parseAnswer(text: string): Answer | undefined {
	const answer = text.trim().toLowerCase();
	if (answer === "y" || answer === "yes") return "allow";
	if (answer === "n" || answer === "no") return "deny";
	if (answer === "a" || answer === "always") return "always";
	return undefined;
}

export interface ApproverOptions {
	/** --yes: every call is allowed without asking. */
	yes: boolean;
	/**
	 * Where an "always" answer is kept (beside the Session's Trace, so --resume keeps it). The
	 * engine reads it: a later call of that tool is allowed before it is announced, never asked here.
	 */
	always: AlwaysAllowed;
}

/**
 * Approvals at the terminal. "Always" holds for the rest of the Session, per tool name, and
 * survives --resume (the engine decides those calls itself). No answer (end of input) is a deny: nobody is left to say yes.
 */
export class Approver {
	constructor(
		private readonly prompt: ApprovalPrompt,
		private readonly screen: Screen,
		private readonly options: ApproverOptions,
	) {}

	readonly approve: ApproveFn = async (call, { signal, unsandboxed }) => {
		// A call that would run outside its sandbox is a person's to allow, each time (docs/sandbox.md).
		const warning = unsandboxed === undefined ? undefined : `${unsandboxed}; --yes and "always" do not apply`;
		if (warning === undefined && this.options.yes) return "allow";
		const answer = await this.prompt.decide(call, signal, warning);
		if (answer === undefined) {
			if (!signal.aborted) this.screen.warn(`no answer (input ended): ${call.name} denied`);
			return "deny";
		}
		if (answer === "always") {
			this.options.always.add(call.name);
			return "allow";
		}
		return answer;
	};
}
