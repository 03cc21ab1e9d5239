import { argumentsObject } from "@omniloop/client";
import type { ToolCall } from "@omniloop/core";
import type { LineInput } from "../terminal/line-input.js";
import type { Screen } from "../terminal/screen.js";
import { callDetails } from "../view/call-details.js";
import { summarizeArguments } from "../view/tool-summary.js";
import { type Answer, type ApprovalPrompt, parseAnswer } from "./approver.js";

/** Lines of a call's details shown before a question on a line terminal or a pipe. */
const MAX_DETAIL_LINES = 40;

export interface LineApprovalOptions {
	/** Whether a line typed before the question may answer it (see LineInput.ask). */
	answersFromQueue: boolean;
	/** Shows the call before the question about it. */
	showCall(call: ToolCall): void;
	workspaceDir: string;
}

/**
 * Approvals asked as a line: "Allow shell `npm test`? [y]es / [n]o / [a]lways for this tool in
 * this Session", after what the call will do (a diff, the command). An unclear answer is asked again.
 */
export class LineApproval implements ApprovalPrompt {
	constructor(
		private readonly input: LineInput,
		private readonly screen: Screen,
		private readonly options: LineApprovalOptions,
	) {}

	async decide(call: ToolCall, signal: AbortSignal, warning?: string): Promise<Answer | undefined> {
		this.options.showCall(call);
		this.showDetails(call);
		if (warning !== undefined) this.screen.warn(`  ${warning}`);
		for (;;) {
			const text = await this.input.ask(this.question(call), { signal, fromQueue: this.options.answersFromQueue });
			if (text === undefined) return undefined;
			const answer = parseAnswer(text);
			if (answer !== undefined) return answer;
			this.screen.warn("Please answer y (yes), n (no) or a (always for this tool in this Session).");
		}
	}

	private showDetails(call: ToolCall): void {
		const lines = callDetails(call, this.options.workspaceDir, this.screen.err.style);
		// A command is shown whole, however long: what is out of sight could be what runs.
		const cap = call.name === "shell" ? Number.POSITIVE_INFINITY : MAX_DETAIL_LINES;
		const shown = lines.length > cap ? lines.slice(0, cap - 1) : lines;
		for (const line of shown) this.screen.notice(`  ${line}`);
		if (shown.length < lines.length) this.screen.notice(`  … ${lines.length - shown.length} more lines`);
	}

	private question(call: ToolCall): string {
		const style = this.screen.err.style;
		const who = call.origin === undefined ? "" : `${call.origin.agentId}'s `;
		const lines = commandLines(call);
		const size = lines > 1 ? ` (${lines} lines, all shown above)` : "";
		const what = `${who}${call.name} \`${summarizeArguments(call.name, call.arguments)}\`${size}`;
		return `${style.bold(`Allow ${what}?`)} [y]es / [n]o / [a]lways for this tool in this Session `;
	}
}

/** How many lines a shell call's command has (1 for anything else). */
function commandLines(call: ToolCall): number {
	if (call.name !== "shell") return 1;
	const command = argumentsObject(call.arguments)?.command;
	return typeof command === "string" ? command.split("\n").length : 1;
}
