import { splitInvisible } from "./escape-invisible.js";

/** Text as it is, invisible characters escaped and marked (escape-invisible.ts). */
export function ShownText({ text }: { text: string }) {
	return (
		<>
			{splitInvisible(text).map((part, i) =>
				part.kind === "text" ? (
					part.text
				) : (
					// biome-ignore lint/suspicious/noArrayIndexKey: a part is its position in the text
					<span key={i} className="escaped" title="an invisible character, shown escaped">
						{part.text}
					</span>
				),
			)}
		</>
	);
}
