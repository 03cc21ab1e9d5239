import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { Composer } from "../src/composer/Composer.js";

/**
 * In the browser: the composer with a 1 MB paste. `paste` is the time from the paste event to the
 * laid-out chip; `keystroke` the median time of one typed character after it (the text is in a
 * chip, not the textarea, so a key costs what it always costs).
 */

declare global {
	interface Window {
		runPasteBench(bytes: number, keys: number): Promise<{ pasteMs: number; keystrokeMs: number }>;
	}
}

const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

window.runPasteBench = async (bytes, keys) => {
	const host = document.createElement("div");
	document.body.append(host);
	const root = createRoot(host);
	flushSync(() =>
		root.render(
			<QueryClientProvider client={new QueryClient()}>
				<Composer sessionId="bench" working={false} locked={false} />
			</QueryClientProvider>,
		),
	);
	await frame();
	const area = host.querySelector("textarea");
	if (area === null) throw new Error("the composer has no textarea");
	area.focus();
	const line = "a line of a log that a person pasted into the composer, 64 char\n";
	const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
	const data = new DataTransfer();
	data.setData("text/plain", text);
	const start = performance.now();
	// The event's update flushed at once (React would in a microtask), so the time includes the render.
	flushSync(() =>
		area.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })),
	);
	if (host.querySelector(".paste-chip") === null) throw new Error("the paste made no chip");
	void host.offsetHeight;
	const pasteMs = performance.now() - start;
	const times: number[] = [];
	for (let i = 0; i < keys; i++) {
		const t = performance.now();
		flushSync(() => document.execCommand("insertText", false, "x"));
		void host.offsetHeight;
		times.push(performance.now() - t);
	}
	times.sort((a, b) => a - b);
	root.unmount();
	host.remove();
	return { pasteMs, keystrokeMs: times[Math.floor(times.length / 2)] ?? 0 };
};
