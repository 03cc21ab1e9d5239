import type { ToolCall } from "@omniloop/core";
import type { Answer, ApprovalPrompt } from "../conversation/approver.js";
import type { Style } from "../terminal/style.js";
import { callDetails } from "../view/call-details.js";
import type { TerminalUi } from "./terminal-ui.js";

/** Lines of the box kept free for its frame, the input box and the line above. */
const RESERVED_ROWS = 10;

/** Approvals in a box of their own above the input: what the call will do, then one key. */
export class TuiApproval implements ApprovalPrompt {
	constructor(
		private readonly ui: TerminalUi,
		private readonly style: Style,
		private readonly options: { showCall(call: ToolCall): void; workspaceDir: string; rows: () => number },
	) {}

	async decide(call: ToolCall, signal: AbortSignal, warning?: string): Promise<Answer | undefined> {
		this.options.showCall(call);
		const details = callDetails(call, this.options.workspaceDir, this.style);
		const lines = warning === undefined ? details : [this.style.yellow(warning), ...details];
		const room = Math.max(4, this.options.rows() - RESERVED_ROWS);
		const shown =
			lines.length > room
				? [...lines.slice(0, room - 1), this.style.dim(`… ${lines.length - room + 1} more lines`)]
				: lines;
		const who = call.origin === undefined ? "" : `${call.origin.agentId}'s `;
		const answer = await this.ui.askApproval({ title: `Allow ${who}${call.name}?`, lines: shown }, signal);
		// A denial is said by the call's output ("✗ denied"); an allow has no line of its own otherwise.
		if (answer === "allow" || answer === "always") {
			const said = answer === "always" ? `allowed (always for ${call.name} in this Session)` : "allowed";
			this.ui.store.commit(this.style.dim(`  ${said}`));
		}
		return answer;
	}
}
