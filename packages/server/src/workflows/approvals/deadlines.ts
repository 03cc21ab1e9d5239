/** The longest delay setTimeout keeps (about 24.8 days); a later deadline is re-armed when it fires. */
const MAX_DELAY = 2_147_483_647;

/**
 * Timers for approval deadlines, by correlation id. The deadline itself lives in the store
 * (`expires_at`), so a restart arms the same one again; a deadline already past fires at once.
 */
export class Deadlines {
	private readonly timers = new Map<string, NodeJS.Timeout>();
	private closed = false;

	arm(correlationId: string, expiresAt: number, fire: () => void): void {
		if (this.closed) return;
		this.clear(correlationId);
		const delay = Math.max(0, expiresAt - Date.now());
		const timer = setTimeout(
			() => {
				this.timers.delete(correlationId);
				if (delay > MAX_DELAY) this.arm(correlationId, expiresAt, fire);
				else fire();
			},
			Math.min(delay, MAX_DELAY),
		);
		timer.unref();
		this.timers.set(correlationId, timer);
	}

	has(correlationId: string): boolean {
		return this.timers.has(correlationId);
	}

	clear(correlationId: string): void {
		const timer = this.timers.get(correlationId);
		if (timer !== undefined) clearTimeout(timer);
		this.timers.delete(correlationId);
	}

	close(): void {
		this.closed = true;
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
	}
}
