import type { CliContext } from "../cli-options.js";
import { Screen } from "../terminal/screen.js";
import { TuiInput } from "../tui/input/tui-input.js";
import { LogStream } from "../tui/log-stream.js";
import { TerminalUi } from "../tui/terminal-ui.js";
import { TuiApproval } from "../tui/tui-approval.js";
import { TuiView } from "../tui/tui-view.js";
import type { HumanViewOptions } from "../view/human-view.js";
import type { Interrupts } from "./interrupts.js";

/** Draws the UI and gives the conversation its screen, input, view and approvals. */
export function openTerminalUi(
	ctx: CliContext,
	options: { viewOptions: HumanViewOptions; interrupts: Interrupts; workspaceDir: string },
) {
	const stdout = ctx.stdout as NodeJS.WriteStream;
	const ui = new TerminalUi({ stdin: ctx.streams.stdin as NodeJS.ReadStream, stdout });
	const log = new LogStream(ui.store, () => ui.columns);
	const screen = new Screen(log, log, ctx.env, false);
	const input = new TuiInput(ui, screen.out.style);
	const view = new TuiView(ui, screen, options.viewOptions);
	const historyView = new TuiView(ui, screen, { ...options.viewOptions, replay: true });
	ui.setHandlers({
		submit: input.submit,
		// Esc or Ctrl-C at a question (a picker, a y/N) cancels it, as Enter with nothing does.
		interrupt: () => {
			if (!input.cancelQuestion()) options.interrupts.interrupt();
		},
		stop: () => {
			if (!input.cancelQuestion()) options.interrupts.stop();
		},
		end: () => input.end(),
		toggleReasoning: () => view.toggleReasoning(),
	});
	// Killed or hung up: the terminal is still given back (raw mode off, bracketed paste off).
	const onSignal = (signal: NodeJS.Signals) => ctx.shutdown.exit(128 + (signal === "SIGHUP" ? 1 : 15));
	process.once("SIGTERM", onSignal);
	process.once("SIGHUP", onSignal);
	const close = () => {
		process.off("SIGTERM", onSignal);
		process.off("SIGHUP", onSignal);
		log.flush();
		ui.close();
	};
	ctx.shutdown.add(close);
	const prompt = new TuiApproval(ui, screen.out.style, {
		showCall: (call) => view.showToolCall(call),
		workspaceDir: options.workspaceDir,
		rows: () => stdout.rows ?? 24,
	});
	return { screen, input, view, historyView, prompt, close };
}
