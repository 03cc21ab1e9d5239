import { code } from "@streamdown/code";
import { memo } from "react";
import { type Components, Streamdown } from "streamdown";
import { NoSource, SafeImage, SafeLink } from "./markdown-links.js";

// Module constants: a new object or array on each render would change streamdown's context and
// re-render every block on every token.
const plugins = { code };
const themes: ["github-light", "github-dark"] = ["github-light", "github-dark"];
const components: Components = { img: SafeImage, a: SafeLink, source: NoSource };
/** Links are our own (`SafeLink`): they open as written, in a new tab, their target shown. */
const linkSafety = { enabled: false };
/** A copy button on each code block; no downloads, no table or diagram tools. */
const controls = { code: { copy: true, download: false }, table: false, mermaid: false, image: false };

/**
 * Markdown rendered block by block: streamdown splits the answer into top-level blocks (lexing
 * only the tail again as it grows) and memoizes each, so one more token re-renders the last block,
 * not the whole text (bench/run.mjs measures it). Images and links go through markdown-links.tsx.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
	return (
		<Streamdown
			className="markdown"
			mode={streaming ? "streaming" : "static"}
			isAnimating={streaming}
			plugins={plugins}
			controls={controls}
			shikiTheme={themes}
			components={components}
			linkSafety={linkSafety}
		>
			{text}
		</Streamdown>
	);
});
