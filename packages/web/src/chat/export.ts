import type { OmniMessage } from "@omniloop/client";
import { client } from "../api/http.js";

/** A Session's history as the server keeps it (the OmniMessages of its Trace, no partials). */
export async function historyOf(sessionId: string): Promise<OmniMessage[]> {
	const answer = await client.call("GET /chat/sessions/:id", { params: { id: sessionId } });
	return answer.messages;
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
