import type { OmniMessage } from "@omniloop/client";
import { client } from "../api/http.js";

/** A Session's history as the server keeps it (the OmniMessages of its Trace, no partials). */
export async function historyOf(sessionId: string): Promise<OmniMessage[]> {
	const answer = await client.call("GET /chat/sessions/:id", { params: { id: sessionId } });
	return answer.messages;
}

const fence = (text: string, lang = "") => {
	// A fence longer than any run of backticks inside, so the text cannot close it.
	const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
	const ticks = "`".repeat(longest + 1);
	return `${ticks}${lang}\n${text}\n${ticks}`;
};

/** The conversation as Markdown: what was said, each tool call with its arguments and output. */
export function markdownOf(title: string, messages: readonly OmniMessage[]): string {
	const parts = [`# ${title}`];
	for (const m of messages) {
		if (m.origin !== undefined) continue;
		if (m.type === "user_text") parts.push(`## You\n\n${m.text}`);
		else if (m.type === "assistant_text") parts.push(`## Agent\n\n${m.text}`);
		else if (m.type === "tool_call") parts.push(`### Tool call: ${m.name}\n\n${fence(m.arguments, "json")}`);
		else if (m.type === "tool_call_output") parts.push(`Output (${m.status}):\n\n${fence(m.output)}`);
	}
	return `${parts.join("\n\n")}\n`;
}

/** Saves `text` as a file the browser downloads. */
export function download(name: string, type: string, text: string): void {
	const url = URL.createObjectURL(new Blob([text], { type }));
	const link = document.createElement("a");
	link.href = url;
	link.download = name;
	link.click();
	setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
