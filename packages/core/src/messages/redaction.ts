import type { OmniMessage, PartialMessage } from "./omni-message.js";

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
	const values = secretList(secrets);
	if (values.length === 0) return (message) => message;
	return (message) => redactValue(message, values) as OmniMessage;
}

/** The values worth redacting, longest first. */
function secretList(secrets: Iterable<string>): string[] {
	return [...new Set(secrets)].filter((value) => value.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * Redaction for streamed fragments. A model that repeats a key streams it in many small deltas,
 * none holding the whole key: each item's text (by the id of the message it becomes) is redacted
 * as a whole, and its tail is held back while it could still be the start of a key. What was held
 * is released, redacted, just before the complete message (`release`), so the deltas still add
 * up to the message as it is shown.
 */
export class PartialRedaction {
	private readonly secrets: readonly string[];
	/** Held-back text per item, with the fragment it came in (its type, and a call's name). */
	private readonly held = new Map<string, PartialMessage>();

	constructor(secrets: Iterable<string>) {
		this.secrets = secretList(secrets);
	}

	/** The fragment to emit now, redacted; undefined when all of it is held back. */
	pass(fragment: PartialMessage): PartialMessage | undefined {
		if (this.secrets.length === 0) return fragment;
		const text = redactText((this.held.get(fragment.id)?.delta ?? "") + fragment.delta, this.secrets);
		const hold = this.keyStartAtEnd(text);
		if (hold > 0) this.held.set(fragment.id, { ...fragment, delta: text.slice(text.length - hold) });
		else this.held.delete(fragment.id);
		if (hold === text.length) return undefined;
		fragment.delta = text.slice(0, text.length - hold);
		return fragment;
	}

	/** The text held back for the item `id` completes, as a last fragment; undefined when none is. */
	release(id: string): PartialMessage | undefined {
		const held = this.held.get(id);
		this.held.delete(id);
		return held;
	}

	/** How many characters at the end of `text` could begin a key (the longest such end). */
	private keyStartAtEnd(text: string): number {
		let longest = 0;
		for (const secret of this.secrets) {
			for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
				if (secret.startsWith(text.slice(text.length - length))) {
					longest = length;
					break;
				}
			}
		}
		return longest;
	}
}

/** The value with every secret replaced, or the value itself (same reference) when it holds none. */
function redactValue(value: unknown, secrets: readonly string[]): unknown {
	if (typeof value === "string") return redactText(value, secrets);
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		value.forEach((item, index) => {
			const redacted = redactValue(item, secrets);
			if (redacted === item) return;
			copy ??= [...value];
			copy[index] = redacted;
		});
		return copy ?? value;
	}
	if (typeof value !== "object" || value === null) return value;
	let copy: Record<string, unknown> | undefined;
	for (const [key, item] of Object.entries(value)) {
		const redacted = redactValue(item, secrets);
		if (redacted === item) continue;
		copy ??= { ...value };
		copy[key] = redacted;
	}
	return copy ?? value;
}

function redactText(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
	return out;
}
