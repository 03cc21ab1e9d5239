import type { OmniMessage, PartialMessage } from "./omni-message.js";
import { SecretMatcher } from "./secret-matcher.js";

/** What a credential value becomes in everything a Session emits or writes. */
export const REDACTED = "[redacted]";

/**
 * Shorter values are not redacted: a credential is long, and replacing "1" or "true" everywhere
 * would garble every message while hiding nothing.
 */
export const MIN_SECRET_LENGTH = 8;

/** Replaces credential values in messages; returns the message itself when none occurs in it. */
export type Redact = (message: OmniMessage) => OmniMessage;

/**
 * A redactor for these credential values. A message in which one occurs (a provider error that
 * echoes the key, a tool output that printed it) is copied with each occurrence replaced by
 * `[redacted]`; the engine's own objects are left as they are (the model context is not the
 * stream). The longest value is replaced first, so one that contains another goes whole.
 */
export function redactor(secrets: Iterable<string>): Redact {
	const matcher = matcherFor(secrets);
	if (matcher === undefined) return (message) => message;
	return (message) => redactValue(message, matcher) as OmniMessage;
}

/** Replaces credential values in any value (strings, arrays, plain objects) the same way. */
export type RedactAny = <T>(value: T) => T;

/** A redactor for values that are not messages (a forwarded message's origin). */
export function valueRedactor(secrets: Iterable<string>): RedactAny {
	const matcher = matcherFor(secrets);
	if (matcher === undefined) return (value) => value;
	return <T>(value: T) => redactValue(value, matcher) as T;
}

/** The last set of values prepared: a Task's redactor and its fragments share it, and so do later Tasks. */
let prepared: { key: string; matcher: SecretMatcher } | undefined;
/** The last list of values asked about, as given, and what it prepared: each Task asks three times. */
let lastAsked: { given: string; matcher: SecretMatcher | undefined } | undefined;

/** The values worth redacting, prepared; undefined when there are none. Prepared anew only when the set changes. */
function matcherFor(secrets: Iterable<string>): SecretMatcher | undefined {
	const list = [...secrets];
	const given = JSON.stringify(list);
	if (lastAsked?.given === given) return lastAsked.matcher;
	const long = [...new Set(list.flatMap(withItsLines))].filter((value) => value.length >= MIN_SECRET_LENGTH);
	const values = [...new Set(long.flatMap(writtenForms))].sort((a, b) => b.length - a.length);
	let matcher: SecretMatcher | undefined;
	if (values.length > 0) {
		const key = values.join("\0");
		if (prepared?.key !== key) prepared = { key, matcher: new SecretMatcher(values, REDACTED) };
		matcher = prepared.matcher;
	}
	lastAsked = { given, matcher };
	return matcher;
}

/** The shortest line of a multi-line credential redacted on its own (a key's body is 64 a line). */
const SECRET_LINE_LENGTH = 16;

/**
 * A value of several lines (a PEM key) and those of its lines that look secret on their own: a
 * diff writes them one by one after a `+` or `-`, grep after a file name and line number, so the
 * whole value never occurs there. Only a line of SECRET_LINE_LENGTH characters or more without a
 * space counts (a key's body); armor (`-----BEGIN PRIVATE KEY-----`, with its spaces), indentation
 * and a JSON file's `"type": "service_account",` occur in ordinary text and would be redacted
 * everywhere.
 */
function withItsLines(value: string): string[] {
	if (!value.includes("\n")) return [value];
	const secretLines = value
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line.length >= SECRET_LINE_LENGTH && !/\s/.test(line));
	return [value, ...secretLines];
}

/**
 * The forms a value takes in what is emitted: itself and, when it holds a quote, a backslash or a
 * control character, escaped as inside a JSON string — once (a tool call's arguments are JSON
 * text, in which `a"b\c` is written `a\"b\\c`) and twice (JSON written into a file through such
 * arguments). Matching the value alone would let it through there.
 */
function writtenForms(value: string): string[] {
	const forms = new Set([value]);
	let form = value;
	for (let depth = 0; depth < 2; depth++) {
		form = JSON.stringify(form).slice(1, -1);
		forms.add(form);
	}
	return [...forms];
}

/**
 * Redaction for streamed fragments. A model that repeats a key streams it in many small deltas,
 * none holding the whole key: each item's text (by the id of the message it becomes) is redacted
 * as a whole, and its tail is held back, as it came, while it could still be the start of a key
 * (a longer key that begins with a shorter one included). What was held is released, redacted,
 * just before the complete message (`release`), so the deltas add up to the message as it is shown.
 */
export class PartialRedaction {
	private readonly matcher: SecretMatcher | undefined;
	/** Held-back text per item, with the fragment it came in (its type, and a call's name). */
	private readonly held = new Map<string, PartialMessage>();

	constructor(secrets: Iterable<string>) {
		this.matcher = matcherFor(secrets);
	}

	/** The fragment to emit now, redacted; undefined when all of it is held back. */
	pass(fragment: PartialMessage): PartialMessage | undefined {
		if (this.matcher === undefined) return fragment;
		// A call's id and name come from the model too: redacted as its complete tool_call's are.
		if (fragment.type === "partial_tool_call") {
			fragment.callId = this.matcher.redact(fragment.callId);
			fragment.name = this.matcher.redact(fragment.name);
		}
		const before = this.held.get(fragment.id);
		const text = before === undefined ? fragment.delta : before.delta + fragment.delta;
		const end = this.matcher.finalEnd(text);
		if (end < text.length) this.held.set(fragment.id, { ...fragment, delta: text.slice(end) });
		else if (before !== undefined) this.held.delete(fragment.id);
		if (end === 0) return undefined;
		fragment.delta = this.matcher.redact(end === text.length ? text : text.slice(0, end));
		return fragment;
	}

	/** The text held back for the item `id` completes, redacted, as a last fragment; undefined when none is. */
	release(id: string): PartialMessage | undefined {
		// Every message passes here: with no values to redact, nothing is held and no lookup is made.
		if (this.matcher === undefined) return undefined;
		const held = this.held.get(id);
		if (held === undefined) return undefined;
		this.held.delete(id);
		held.delta = this.matcher.redact(held.delta);
		return held;
	}
}

/** The value with every secret replaced, or the value itself (same reference) when it holds none. */
function redactValue(value: unknown, matcher: SecretMatcher): unknown {
	if (typeof value === "string") return matcher.redact(value);
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		value.forEach((item, index) => {
			const redacted = redactValue(item, matcher);
			if (redacted === item) return;
			copy ??= [...value];
			copy[index] = redacted;
		});
		return copy ?? value;
	}
	if (typeof value !== "object" || value === null) return value;
	// Keys, not entries: no array of pairs is made for each object of each message.
	const record = value as Record<string, unknown>;
	let copy: Record<string, unknown> | undefined;
	for (const key of Object.keys(record)) {
		const item = record[key];
		const redacted = redactValue(item, matcher);
		if (redacted === item) continue;
		copy ??= { ...record };
		copy[key] = redacted;
	}
	return copy ?? value;
}
