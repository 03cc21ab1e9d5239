import type { OmniMessage } from "./omni-message.js";

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
	const values = [...new Set(secrets)].filter((value) => value.length >= MIN_SECRET_LENGTH);
	if (values.length === 0) return (message) => message;
	values.sort((a, b) => b.length - a.length);
	return (message) => redactValue(message, values) as OmniMessage;
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
