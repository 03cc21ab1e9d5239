import type { Usage } from "@omniloop/core";
import { AlwaysAllowed } from "@omniloop/core/internal";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { EXIT } from "../exit-codes.js";
import { type OpenedSession, type OpenOptions, openSession } from "../session/open-session.js";
import { chooseResume } from "../session/resume-choice.js";
import { replayView } from "../session/session-history.js";
import { type ChatInput, LineInput } from "../terminal/line-input.js";
import type { Screen } from "../terminal/screen.js";
import { HumanView, type HumanViewOptions } from "../view/human-view.js";
import { JsonView, type View } from "../view/view.js";
import { type ApprovalPrompt, Approver } from "./approver.js";
import { Interrupts } from "./interrupts.js";
import { LineApproval } from "./line-approval.js";
import { leaveSession } from "./session-end.js";
import { wantsTerminalUi } from "./wants-terminal-ui.js";

/** Everything a Task needs at the terminal: the Session, input, approvals, Ctrl-C and the view. */
export interface Conversation {
	/** The Session talked to; `/sessions <id>`, `/new` and `/model` replace it (session-switch.ts). */
	opened: OpenedSession;
	/** How `opened` was opened: a switch opens the next Session the same way. */
	readonly openOptions: OpenOptions;
	/** Where the conversation writes: the terminal UI's area, or stdout and stderr. */
	readonly screen: Screen;
	/** Whether the full terminal UI is drawn (else lines: a pipe, --json). */
	readonly tui: boolean;
	readonly input: ChatInput;
	approver: Approver;
	/** The approvals of a Session ("always" is per Session). */
	readonly approverFor: (opened: OpenedSession) => Approver;
	readonly interrupts: Interrupts;
	readonly view: View;
	/** A view for the Session's earlier messages (--resume), shown as the live view shows them. */
	readonly historyView: View;
	readonly options: GlobalOptions;
	/** The Session's usage so far, from the last usage report seen. */
	usage: Usage;
	/** Whether anything was sent to the model in this process (a Task, a compaction). */
	used: boolean;
	/** Gives the terminal back (the UI, if one was drawn); what follows goes to stdout and stderr. */
	close(): void;
}

/**
 * Opens the Session and wires the terminal to it: the full terminal UI when stdin and stdout
 * are a terminal (and not --json), else lines. `run` lets lines typed early answer its
 * approvals; in `chat` such lines are the next messages.
 */
export async function startConversation(
	options: GlobalOptions,
	ctx: CliContext,
	mode: "run" | "chat",
): Promise<Conversation> {
	// Ctrl-C's notices go wherever the conversation writes (the UI, once it is drawn).
	let screen: Screen = ctx.screen;
	let view: View | undefined;
	const interrupts = new Interrupts(
		(notice) => {
			// The notice follows what was streamed so far: the partial line is written out first.
			view?.end();
			screen.warn(notice);
		},
		() => ctx.shutdown.exit(EXIT.interrupted),
	);
	ctx.shutdown.add(interrupts.listen());
	// Before the terminal UI or readline take the keys: the picker asks on its own.
	const resume = await chooseResume(options, ctx);
	const tui = wantsTerminalUi(ctx);
	// On a terminal the UI reads the keys; readline would fight it for them.
	const lineInput = tui ? undefined : new LineInput(ctx.streams, ctx.screen, interrupts.interrupt);
	if (lineInput !== undefined) ctx.shutdown.add(() => lineInput.close());
	const openOptions: OpenOptions = {
		agentId: options.agent,
		agentGiven: options.given.agent,
		configDir: options.configDir,
		configDirGiven: options.given.configDir,
		model: options.model,
		resume,
		workspaceDir: ctx.cwd,
		env: ctx.env,
		local: options.local,
	};
	const opened = await openSession(openOptions, ctx.screen);
	let current = opened;
	// The Trace file is closed on every way out; close() writes nothing more after that.
	ctx.shutdown.add(() => void current.session.close());
	const viewOptions: HumanViewOptions = {
		replay: false,
		maxRetries: {
			turn: opened.reconnect.maxRetries,
			compaction: opened.reconnect.compactionMaxRetries,
		},
		credentialHint: opened.credentialHint,
		undoHint: mode === "chat",
	};
	const { workspaceDir } = opened;
	let parts: {
		screen: Screen;
		input: ChatInput;
		view: View;
		historyView: View;
		prompt: ApprovalPrompt;
		close(): void;
	};
	if (lineInput === undefined) {
		// Loaded only for a person at a terminal: ink and React are most of what the CLI would load.
		const { openTerminalUi } = await import("./terminal-conversation.js");
		parts = openTerminalUi(ctx, { viewOptions, interrupts, workspaceDir });
	} else {
		const view: View = ctx.screen.json
			? new JsonView(ctx.screen, opened.credentialHint)
			: new HumanView(ctx.screen, {
					...viewOptions,
					// A script reading `omniloop run`'s stdout gets the answer alone; the rest is on stderr.
					answerOnlyOnStdout: mode === "run" && !ctx.screen.out.isTTY,
				});
		const prompt = new LineApproval(lineInput, ctx.screen, {
			// Over a pipe every line is read in order: a line after a message answers its approval.
			answersFromQueue: mode === "run" || !lineInput.terminal,
			showCall: (call) => view.showToolCall(call),
			workspaceDir,
		});
		const historyView = replayView(opened.home, ctx.screen);
		parts = { screen: ctx.screen, input: lineInput, view, historyView, prompt, close: () => {} };
	}
	screen = parts.screen;
	view = parts.view;
	const approverFor = (session: OpenedSession) => {
		current = session;
		const always = new AlwaysAllowed(session.home, session.session.id);
		return new Approver(parts.prompt, parts.screen, { yes: options.yes, always });
	};
	const conversation: Conversation = {
		opened,
		openOptions,
		screen: parts.screen,
		tui,
		input: parts.input,
		approver: approverFor(opened),
		approverFor,
		interrupts,
		view: parts.view,
		historyView: parts.historyView,
		options,
		usage: initialUsage(opened),
		used: false,
		close: parts.close,
	};
	// A Ctrl-C that exits at once still says how to continue (the Trace is closed by then).
	ctx.shutdown.add(() => leaveSession(conversation, ctx));
	return conversation;
}

export function initialUsage(opened: OpenedSession): Usage {
	return opened.usage;
}
