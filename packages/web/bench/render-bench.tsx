import { flushSync } from "react-dom";
import { createRoot, type Root } from "react-dom/client";
import { Streamdown } from "streamdown";
import { Markdown } from "../src/messages/Markdown.js";

/**
 * In the browser: the cost of one more token at the end of an answer of N paragraphs (every tenth
 * a code block), for the app's Markdown (streamdown with shiki, as the chat renders it) and two
 * baselines: bare streamdown, and streamdown made to see one block (the whole answer parsed and
 * rendered again on every token, as a plain react-markdown does).
 */

type Variant = "app" | "streamdown-default" | "one-block";

const PARAGRAPH =
	"The loop streams the **model's output**, asks before each tool call, and runs approved tools concurrently; `steer` queues a message for the next turn.";

function answerOf(paragraphs: number): string {
	const blocks: string[] = [];
	for (let i = 0; i < paragraphs; i++) {
		blocks.push(
			i % 10 === 9 ? '```ts\nconst turn = await session.run([userText("hi")]);\n```' : `${i + 1}. ${PARAGRAPH}`,
		);
	}
	return blocks.join("\n\n");
}

function View({ variant, text }: { variant: Variant; text: string }) {
	if (variant === "app") return <Markdown text={text} streaming />;
	if (variant === "streamdown-default")
		return (
			<Streamdown mode="streaming" controls={false}>
				{text}
			</Streamdown>
		);
	return (
		<Streamdown mode="streaming" controls={false} parseMarkdownIntoBlocksFn={(t) => [t]}>
			{text}
		</Streamdown>
	);
}

function measure(root: Root, host: HTMLElement, variant: Variant, paragraphs: number, tokens: number): number {
	let text = answerOf(paragraphs);
	flushSync(() => root.render(<View variant={variant} text={text} />));
	const times: number[] = [];
	for (let i = 0; i < tokens; i++) {
		text += i % 8 === 0 ? " word" : "s";
		const start = performance.now();
		flushSync(() => root.render(<View variant={variant} text={text} />));
		// Layout too: what the browser must do before it can paint the token.
		void host.offsetHeight;
		times.push(performance.now() - start);
	}
	times.sort((a, b) => a - b);
	return times[Math.floor(times.length / 2)] ?? 0;
}

declare global {
	interface Window {
		runBench(sizes: number[], tokens: number): Record<Variant, Record<number, number>>;
	}
}

window.runBench = (sizes, tokens) => {
	// A first round warms the JIT, so the first size measured is not the slowest for that reason.
	const warm = document.createElement("div");
	document.body.append(warm);
	const warmRoot = createRoot(warm);
	measure(warmRoot, warm, "app", 10, tokens);
	warmRoot.unmount();
	warm.remove();
	const result: Record<Variant, Record<number, number>> = { app: {}, "streamdown-default": {}, "one-block": {} };
	for (const variant of Object.keys(result) as Variant[]) {
		for (const size of sizes) {
			const host = document.createElement("div");
			document.body.append(host);
			const root = createRoot(host);
			result[variant][size] = measure(root, host, variant, size, tokens);
			root.unmount();
			host.remove();
		}
	}
	return result;
};
