import { userText } from "../../messages/constructors.js";
import type { UserText } from "../../messages/omni-message.js";
import { steerMessage } from "../../messages/steer.js";

/**
 * Steering queued by the host while a Task runs. Open from the moment `run` (or `continueTask`)
 * is called until the moment the Task decides to end; `offer` returns false outside that, so a
 * `true` is a promise of delivery.
 */
export class SteeringQueue {
	private items: string[] = [];
	private open = false;

	start(): void {
		this.open = true;
	}

	offer(text: string): boolean {
		if (!this.open) return false;
		this.items.push(text);
		return true;
	}

	get size(): number {
		return this.items.length;
	}

	/** Takes every queued message, wrapped as the user texts that deliver them. */
	drain(): UserText[] {
		const texts = this.items;
		this.items = [];
		return texts.map(steeringMessage);
	}

	/** From now on `offer` returns false; what is queued stays until drained. */
	stopAccepting(): void {
		this.open = false;
	}

	/** Stops accepting; returns what was queued and not delivered. */
	close(): UserText[] {
		this.open = false;
		return this.drain();
	}
}

export function steeringMessage(text: string): UserText {
	return steerMessage(userText(""), text);
}
