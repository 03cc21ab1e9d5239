/** ANSI styling, on only for a terminal and only when NO_COLOR is unset (https://no-color.org). */
export interface Style {
	readonly enabled: boolean;
	dim(text: string): string;
	bold(text: string): string;
	red(text: string): string;
	yellow(text: string): string;
	green(text: string): string;
	cyan(text: string): string;
	magenta(text: string): string;
	italic(text: string): string;
	underline(text: string): string;
	inverse(text: string): string;
}

/** Whether a stream gets ANSI colours: a TTY, and NO_COLOR unset or empty. */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
	return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

function wrap(open: number, close: number): (text: string) => string {
	return (text) => (text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

const plain = (text: string) => text;

export function createStyle(enabled: boolean): Style {
	if (!enabled) {
		return {
			enabled,
			dim: plain,
			bold: plain,
			red: plain,
			yellow: plain,
			green: plain,
			cyan: plain,
			magenta: plain,
			italic: plain,
			underline: plain,
			inverse: plain,
		};
	}
	return {
		enabled,
		dim: wrap(2, 22),
		bold: wrap(1, 22),
		red: wrap(31, 39),
		yellow: wrap(33, 39),
		green: wrap(32, 39),
		cyan: wrap(36, 39),
		magenta: wrap(35, 39),
		italic: wrap(3, 23),
		underline: wrap(4, 24),
		inverse: wrap(7, 27),
	};
}
