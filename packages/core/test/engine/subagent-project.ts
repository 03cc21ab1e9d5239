import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness.js";

/**
 * A project folder whose "boss" agent (model "main") can hand work to a "researcher" subagent
 * (model "helper"); `extraAgents` adds lines under `agents:`. The tests give each model its own script.
 */
export function bossAndResearcher(extraAgents = ""): string {
	const configDir = tempDir();
	writeFileSync(
		join(configDir, "omniloop.yaml"),
		[
			"models:",
			"  main: { provider: anthropic, model: boss-model }",
			"  helper: { provider: anthropic, model: researcher-model }",
			"agents:",
			"  boss: { model: main }",
			"  researcher: { model: helper, description: Finds facts and reports them. }",
			extraAgents,
		].join("\n"),
	);
	return configDir;
}
