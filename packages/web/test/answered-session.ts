import { createAgent, userText } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";

/**
 * A Session of `questions` questions ("Question 1", …) and their answers (each `answer`), made
 * in-process on a home for a test to open in the app (the server reads its Trace).
 */
export async function answeredSession(
	home: string,
	root: string,
	questions: number,
	answer = "An answer.\n\nWith a second paragraph.",
): Promise<string> {
	const model = new ScriptedModel([], { whenExhausted: { text: answer } });
	const agent = await createAgent({ agentId: "default_agent", configDir: root, home, env: {}, model });
	const session = await agent.createSession({ workspaceDir: root });
	for (let i = 1; i <= questions; i++) {
		for await (const _ of session.run([userText(`Question ${i}`)])) {
			// Drained: the Trace is what the server reads.
		}
	}
	await session.close();
	return session.id;
}
