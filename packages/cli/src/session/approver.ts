import type { ApprovalAnswer, ApproveFn, ToolCall } from "@omniloop/core";
import type { LineInput } from "../terminal/line-input.js";
import type { Screen } from "../terminal/screen.js";
import { summarizeArguments } from "../view/tool-summary.js";

type Answer = ApprovalAnswer | "always";

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
	/** Whether a line typed before the question may answer it (see LineInput.ask). */
	answersFromQueue: boolean;
	/** Shows the call before the question about it. */
	showCall(call: ToolCall): void;
}

/**
 * Approvals at the terminal: "Allow shell `npm test`? [y]es / [n]o / [a]lways for this tool in
 * this Session". "Always" holds for the rest of the Session (this process), per tool name. End of
 * input is a deny: nobody is left to say yes.
 */
export class Approver {
	private readonly always = new Set<string>();

	constructor(
		private readonly input: LineInput,
		private readonly screen: Screen,
		private readonly options: ApproverOptions,
	) {}

	readonly approve: ApproveFn = async (call, { signal }) => {
		if (this.options.yes || this.always.has(call.name)) return "allow";
		this.options.showCall(call);
		for (;;) {
			const text = await this.input.ask(this.question(call), { signal, fromQueue: this.options.answersFromQueue });
			if (text === undefined) {
				if (!signal.aborted) this.screen.warn(`no answer (input ended): ${call.name} denied`);
				return "deny";
			}
			const answer = parseAnswer(text);
			if (answer === "always") {
				this.always.add(call.name);
				return "allow";
			}
			if (answer !== undefined) return answer;
			this.screen.warn("Please answer y (yes), n (no) or a (always for this tool in this Session).");
		}
	};

	private question(call: ToolCall): string {
		const style = this.screen.err.style;
		const who = call.origin === undefined ? "" : `${call.origin.agentId}'s `;
		const what = `${who}${call.name} \`${summarizeArguments(call.name, call.arguments)}\``;
		return `${style.bold(`Allow ${what}?`)} [y]es / [n]o / [a]lways for this tool in this Session `;
	}
}
