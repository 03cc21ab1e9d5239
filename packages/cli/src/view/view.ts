import type { OmniMessage, ToolCall } from "@omniloop/core";
import type { Screen } from "../terminal/screen.js";

/** Shows a Session's messages as they stream: rendered for people, or as JSON lines for scripts. */
export interface View {
	show(message: OmniMessage): void;
	/**
	 * Shows a call now, before its message arrives: the engine asks for approval as soon as a call
	 * is complete, which can be before the stream delivers the call, and the question must follow it.
	 */
	showToolCall(call: ToolCall): void;
	/** The stream is over (a Task or a compaction ended, or was cut short): settle the screen. */
	end(): void;
}

/** --json: one OmniMessage a line on stdout and nothing else there; hints go to stderr. */
export class JsonView implements View {
	constructor(
		private readonly screen: Screen,
		private readonly credentialHint: () => string,
	) {}

	show(message: OmniMessage): void {
		this.screen.out.write(`${JSON.stringify(message)}\n`);
		// A script's reader may only look at stdout; a person watching stderr still learns what to fix.
		if (message.type === "request_end" && message.status === "auth" && message.origin === undefined) {
			this.screen.error(`authentication failed: ${this.credentialHint()}`);
		}
	}

	/** The message itself comes in order on stdout; the question is on stderr. */
	showToolCall(): void {}

	end(): void {}
}
