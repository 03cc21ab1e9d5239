import { seededRandom } from "../seeded-random.js";
import type { StreamPlan } from "./faults.js";
import type { ReplayConvention, ReplayOptions } from "./types.js";

/** Cuts at pseudo-random offsets of 1 to 24 bytes, and inside every multi-byte character. */
function splitBytes(bytes: Buffer, seed: number): Buffer[] {
	const next = seededRandom(seed);
	const cuts = new Set<number>();
	for (let at = 1 + Math.floor(next() * 24); at < bytes.length; at += 1 + Math.floor(next() * 24)) cuts.add(at);
	// 0xC0 and above start a multi-byte UTF-8 sequence: cut right after that lead byte.
	for (let at = 0; at < bytes.length; at++) if (bytes[at]! >= 0xc0) cuts.add(at + 1);
	const sorted = [...cuts].filter((at) => at > 0 && at < bytes.length).sort((a, b) => a - b);
	const pieces: Buffer[] = [];
	let from = 0;
	for (const at of [...sorted, bytes.length]) {
		pieces.push(bytes.subarray(from, at));
		from = at;
	}
	return pieces;
}

function eventName(line: string, index: number): string {
	let type: unknown;
	try {
		type = (JSON.parse(line) as { type?: unknown }).type;
	} catch {
		type = undefined;
	}
	if (typeof type !== "string") {
		throw new Error(`replayRecorded: line ${index + 1} has no top-level string "type" for an event-named stream`);
	}
	return type;
}

/**
 * The writes of a recorded stream, framed per the recorded-streams README: each non-empty line
 * sent unchanged as one event (`event: <type>` first for event-named streams), `data: [DONE]`
 * last for `data-only+DONE`. Throws at once for an event-named line without a `type`.
 */
export function replayPlan(lines: readonly string[], convention: ReplayConvention, options: ReplayOptions): StreamPlan {
	const eol = options.lineEnding ?? "\n";
	const events = lines
		.filter((line) => line.trim() !== "")
		.map((line, index) => {
			const name = convention === "event-named" ? `event: ${eventName(line, index)}${eol}` : "";
			return `${name}data: ${line}${eol}${eol}`;
		});
	if (convention === "data-only+DONE") events.push(`data: [DONE]${eol}${eol}`);
	const writes = events.map((event) => Buffer.from(event, "utf8"));
	if (!options.splitWrites) return { writes, ending: "end" };
	return { writes: splitBytes(Buffer.concat(writes), options.seed ?? 1), ending: "end" };
}
