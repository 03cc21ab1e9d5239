/** USD per million tokens, as `price` in omniloop.yaml. */
export interface Price {
	input: number;
	output: number;
	cacheRead?: number | undefined;
	cacheWrite?: number | undefined;
}

interface Tokens {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

/**
 * What tokens cost. `input` counts every input token, cached ones included, so the input price is
 * charged on the uncached part; cache reads and writes at their own prices (default: the input price).
 */
export function costOf(tokens: Tokens, price: Price): number {
	const uncached = Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite);
	return (
		(uncached * price.input +
			tokens.output * price.output +
			tokens.cacheRead * (price.cacheRead ?? price.input) +
			tokens.cacheWrite * (price.cacheWrite ?? price.input)) /
		1_000_000
	);
}
