import { isMarker, readMarker, writeMarker } from "./markers.js";
import type { OmniMessage, UserText } from "./omni-message.js";

/** The user text that delivers a steer: wrapped for the model, and marked as a steer for every reader. */
export function steerMessage(base: UserText, steer: string): UserText {
	return { ...base, text: writeMarker("user_steering", steer), steer };
}

/**
 * A message as read from a Trace: a steer written before `UserText.steer` existed (only its
 * `[user_steering]` text) gets the field, so readers of old and new Traces alike look at the field.
 */
export function withSteerField(message: OmniMessage): OmniMessage {
	if (message.type !== "user_text" || message.steer !== undefined || !isMarker(message.text, "user_steering")) {
		return message;
	}
	return { ...message, steer: readMarker(message.text.trim(), "user_steering") ?? "" };
}
