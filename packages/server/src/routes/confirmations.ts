import { answerBody } from "@omniloop/client/wire";
import type { Hono } from "hono";
import { readBody } from "../body.js";
import { HttpError, notFound } from "../errors.js";
import type { AppEnv, ServerState } from "../server-state.js";

/** The answer to a `confirmation_required`: from any viewer, once; the first answer wins. */
export function confirmationRoutes(app: Hono<AppEnv>, state: ServerState): void {
	app.post("/chat/sessions/:id/ask-user-response", async (c) => {
		const body = await readBody(c, answerBody);
		const hosted = state.registry.get(c.req.param("id"));
		await state.workflows.refuseChat(hosted.id, "answer");
		const result = await hosted.answer(body.correlationId, body.decision, body.always ?? false);
		if (result.kind === "unknown") throw notFound(`confirmation ${body.correlationId}`);
		if (result.kind === "already") {
			throw new HttpError(
				"already_answered",
				`confirmation ${body.correlationId} was already answered: ${result.decision}${result.decision === "interrupted" ? " (its Task ended before an answer)" : ""}`,
			);
		}
		return c.json({ ok: true });
	});
}
