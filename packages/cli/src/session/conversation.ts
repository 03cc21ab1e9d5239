import { emptyUsage, listSessions, loadSystemConfig, type Usage } from "@omniloop/core";
import { Approver } from "./approver.js";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { EXIT } from "../exit-codes.js";
import { HumanView } from "../view/human-view.js";
import { Interrupts } from "./interrupts.js";
import { LineInput } from "../terminal/line-input.js";
import { type OpenedSession, openSession } from "./open-session.js";
import { JsonView, type View } from "../view/view.js";

/** Everything a Task needs at the terminal: the Session, input, approvals, Ctrl-C and the view. */
export interface Conversation {
	readonly opened: OpenedSession;
	readonly input: LineInput;
	readonly approver: Approver;
	readonly interrupts: Interrupts;
	readonly view: View;
	readonly options: GlobalOptions;
	/** The Session's usage so far, from the last usage report seen. */
	usage: Usage;
}

/**
 * Opens the Session and wires the terminal to it. `run` lets lines typed early answer its
 * approvals; in `chat` such lines are the next messages.
 */
export async function startConversation(
	options: GlobalOptions,
	ctx: CliContext,
	mode: "run" | "chat",
): Promise<Conversation> {
	const { screen } = ctx;
	const interrupts = new Interrupts(
		(notice) => screen.warn(notice),
		() => ctx.shutdown.exit(EXIT.interrupted),
	);
	ctx.shutdown.add(interrupts.listen());
	const input = new LineInput(ctx.streams, screen, interrupts.interrupt);
	ctx.shutdown.add(() => input.close());
	const opened = await openSession(
		{
			agentId: options.agent,
			configDir: options.configDir,
			model: options.model,
			resume: options.resume,
			workspaceDir: ctx.cwd,
			env: ctx.env,
		},
		screen,
	);
	// The Trace file is closed on every way out; close() writes nothing more after that.
	ctx.shutdown.add(() => void opened.session.close());
	const view: View = screen.json
		? new JsonView(screen, opened.credentialHint)
		: new HumanView(screen, {
				replay: false,
				maxRetries: {
					turn: opened.agent.config.reconnect.maxRetries,
					compaction: opened.agent.config.reconnect.compactionMaxRetries,
				},
				credentialHint: opened.credentialHint,
			});
	return {
		opened,
		input,
		approver: new Approver(input, screen, {
			yes: options.yes,
			answersFromQueue: mode === "run",
			showCall: (call) => view.showToolCall(call),
		}),
		interrupts,
		view,
		options,
		usage: initialUsage(opened),
	};
}

function initialUsage(opened: OpenedSession): Usage {
	if (!opened.resumed) return emptyUsage();
	return listSessions(opened.agent.home).find((s) => s.sessionId === opened.session.id)?.usage ?? emptyUsage();
}

/** The reconnect limits of a home's system_config.yaml, for views that have no agent (replay). */
export function reconnectLimits(home: string): { turn: number; compaction: number } {
	try {
		const { reconnect } = loadSystemConfig(home);
		return { turn: reconnect.maxRetries, compaction: reconnect.compactionMaxRetries };
	} catch {
		return { turn: 5, compaction: 3 };
	}
}
