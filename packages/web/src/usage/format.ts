/** Numbers as people read them: 1234 → "1.2k", 0.0168 → "$0.017". */

export function formatTokens(n: number): string {
	if (n < 1000) return String(n);
	if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
	return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number | undefined): string {
	if (usd === undefined) return "—";
	if (usd === 0) return "$0";
	return usd < 1 ? `$${Number(usd.toPrecision(2))}` : `$${usd.toFixed(2)}`;
}

export function formatPercent(part: number, whole: number): string {
	return whole === 0 ? "—" : `${Math.round((part / whole) * 100)}%`;
}
