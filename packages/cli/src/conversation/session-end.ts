import { resolve } from "node:path";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import type { OpenedSession } from "../session/open-session.js";

/** What leaving needs of a conversation (conversation.ts's `Conversation` is one). */
export interface LeavingConversation {
	readonly opened: OpenedSession;
	readonly options: GlobalOptions;
	/** Whether anything was sent to the model in this process. */
	readonly used: boolean;
	/** Gives the terminal back. */
	close(): void;
}

/** Leaving a conversation the ordinary way: the Trace closed first, then `leaveSession`. */
export async function endConversation(conversation: LeavingConversation, ctx: CliContext): Promise<void> {
	await conversation.opened.session.close();
	if (!conversation.opened.resumed && !conversation.used) await conversation.opened.discard();
	leaveSession(conversation, ctx);
}

const left = new WeakSet<LeavingConversation>();

/**
 * The terminal is given back, then the Session's id and the command that continues it are
 * printed. A Session opened here and left without a message is removed, so `omniloop sessions`
 * does not fill up with empty ones. Synchronous and done once: it also runs on the way out of
 * a Ctrl-C exit.
 */
export function leaveSession(conversation: LeavingConversation, ctx: CliContext): void {
	if (left.has(conversation)) return;
	left.add(conversation);
	const { session } = conversation.opened;
	conversation.close();
	if (isUnused(conversation.opened, conversation.used)) {
		// On a Ctrl-C exit nothing waits for a server's answer; endConversation has awaited it.
		void conversation.opened.discard();
		return;
	}
	ctx.screen.notice(
		ctx.screen.err.style.dim(`Session ${session.id} · continue it with: ${resumeCommand(conversation, ctx)}`),
	);
}

/**
 * Whether a Session opened here, not resumed, was left without a message (`used`: anything was sent
 * in this process): such a one is discarded on leaving or switching, so `omniloop sessions` does
 * not fill up with empty ones.
 */
export function isUnused(opened: OpenedSession, used: boolean): boolean {
	return !opened.resumed && !used;
}

export function resumeCommand(conversation: LeavingConversation, ctx: CliContext): string {
	const { options } = conversation;
	const parts = ["omniloop"];
	if (resolve(options.configDir) !== resolve(ctx.cwd)) parts.push("--config-dir", quote(options.configDir));
	if (options.agent !== "default_agent") parts.push("--agent", quote(options.agent));
	parts.push("--resume", conversation.opened.session.id);
	return parts.join(" ");
}

function quote(word: string): string {
	return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
