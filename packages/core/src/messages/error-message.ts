/**
 * The message of anything thrown, for an event, an output or a wrapping error. Never throws
 * itself: a thrown string, undefined, a circular object or a BigInt all get a readable message.
 */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message;
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error) ?? String(error);
	} catch {
		return String(error);
	}
}
