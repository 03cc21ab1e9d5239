import type { ThinkingLevel } from "@omniloop/client";

/**
 * What a person has typed in a Session's composer and not sent, kept while an approval card takes
 * the composer's place (the composer is unmounted) and across a switch of Session. Keystrokes that
 * reach the card while the person is still typing are added here, not taken as an answer.
 */
const drafts = new Map<string, string>();

/** When the person last pressed a key in a composer or an approval card (performance.now()). */
let lastKeyAt = Number.NEGATIVE_INFINITY;

export function draftOf(sessionId: string): string {
	return drafts.get(sessionId) ?? "";
}

export function setDraft(sessionId: string, text: string): void {
	if (text === "") drafts.delete(sessionId);
	else drafts.set(sessionId, text);
}

/**
 * The thinking level chosen in a Session's composer: kept, like the draft, while an approval card
 * takes the composer's place and across a switch of Session ("" is the model's default).
 */
const thinkingLevels = new Map<string, ThinkingLevel>();

export function thinkingOf(sessionId: string): ThinkingLevel | "" {
	return thinkingLevels.get(sessionId) ?? "";
}

export function setThinkingOf(sessionId: string, level: ThinkingLevel | ""): void {
	if (level === "") thinkingLevels.delete(sessionId);
	else thinkingLevels.set(sessionId, level);
}

const putBackListeners = new Set<(sessionId: string) => void>();

/**
 * Puts a message back into a Session's composer (a prompt the model refused, to send again), unless
 * something is typed there already: the composer on screen shows it at once.
 */
export function putBackDraft(sessionId: string, text: string): void {
	if (draftOf(sessionId).trim() !== "" || text === "") return;
	setDraft(sessionId, text);
	for (const listener of putBackListeners) listener(sessionId);
}

/** Calls `listener` when a message is put back into a composer's draft; returns the unsubscribe. */
export function onDraftPutBack(listener: (sessionId: string) => void): () => void {
	putBackListeners.add(listener);
	return () => putBackListeners.delete(listener);
}

export function appendToDraft(sessionId: string, text: string): void {
	setDraft(sessionId, draftOf(sessionId) + text);
}

export function keyPressed(): void {
	lastKeyAt = performance.now();
}

/** A message was sent (Enter): the typing that went before it is over. */
export function typingEnded(): void {
	lastKeyAt = Number.NEGATIVE_INFINITY;
}

/**
 * Whether a key now continues a run of typing: pressed within `pauseMs` of the previous one. A
 * one-key answer is taken only after a pause, never as the next letter of a sentence.
 */
export function stillTyping(pauseMs: number): boolean {
	return performance.now() - lastKeyAt < pauseMs;
}
