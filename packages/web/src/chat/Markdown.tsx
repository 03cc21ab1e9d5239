import { code } from "@streamdown/code";
import { memo } from "react";
import { Streamdown } from "streamdown";
import { splitBlocks } from "./blocks.js";

const plugins = { code };

/**
 * Markdown rendered block by block: streamdown memoizes each block, and `splitBlocks` re-lexes
 * only the tail of a growing answer, so one more token costs the last block, not the whole text.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
	return (
		<Streamdown
			className="markdown"
			mode={streaming ? "streaming" : "static"}
			isAnimating={streaming}
			plugins={plugins}
			controls={false}
			parseMarkdownIntoBlocksFn={splitBlocks}
			shikiTheme={["github-light", "github-dark"]}
		>
			{text}
		</Streamdown>
	);
});
