/**
 * Ctrl-C. During an operation (a Task, a compaction, a title) the first Ctrl-C aborts it and the
 * CLI carries on; a second one, or one with nothing running (at the prompt), exits at once.
 * Both the process signal (a pipe, `kill -INT`) and readline's event (a terminal in raw mode) come here.
 */
export class Interrupts {
	private current: { controller: AbortController; notice: string } | undefined;

	constructor(
		private readonly tell: (notice: string) => void,
		private readonly exitNow: () => void,
	) {}

	/** Starts an operation Ctrl-C can stop; `notice` is said when it does. */
	begin(notice: string): AbortController {
		const controller = new AbortController();
		this.current = { controller, notice };
		return controller;
	}

	end(controller: AbortController): void {
		if (this.current?.controller === controller) this.current = undefined;
	}

	readonly interrupt = (): void => {
		const current = this.current;
		if (current === undefined || current.controller.signal.aborted) {
			this.exitNow();
			return;
		}
		current.controller.abort(new Error("interrupted by the user (Ctrl-C)"));
		this.tell(current.notice);
	};

	/** Escape: stops the running operation as Ctrl-C does, but with nothing running it does nothing. */
	readonly stop = (): void => {
		const current = this.current;
		if (current !== undefined && !current.controller.signal.aborted) this.interrupt();
	};

	/** Listens for SIGINT; returns the function that stops listening. */
	listen(): () => void {
		process.on("SIGINT", this.interrupt);
		return () => process.off("SIGINT", this.interrupt);
	}
}
