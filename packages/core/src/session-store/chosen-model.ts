import { readFileSync } from "node:fs";
import { join } from "node:path";
import { replacePrivateFile } from "../trace/private-files.js";
import { sessionDir } from "../trace/trace-files.js";

const FILE = "chosen-model.json";

/** A model a person chose for a Session (over HTTP, or with the CLI's /model): its name in omniloop.yaml and the id its Trace records. */
export interface ChosenModel {
	name: string;
	model: string;
}

/**
 * The model chosen for Session `id` (`PATCH /chat/sessions/:id { model }`, the CLI's `/model`), kept beside its Trace
 * (as the "always" grants are); undefined when none was, or the file cannot be read.
 */
export function readChosenModel(home: string, id: string): ChosenModel | undefined {
	try {
		const parsed: unknown = JSON.parse(readFileSync(join(sessionDir(home, id), FILE), "utf8"));
		if (
			typeof parsed === "object" &&
			parsed !== null &&
			"name" in parsed &&
			typeof parsed.name === "string" &&
			"model" in parsed &&
			typeof parsed.model === "string"
		)
			return { name: parsed.name, model: parsed.model };
	} catch {
		// None chosen (or unreadable): the Session runs on the model its Trace recorded.
	}
	return undefined;
}

/** Keeps the choice, replaced whole (a rename), so a crash never leaves it half written. */
export function writeChosenModel(home: string, id: string, chosen: ChosenModel): void {
	replacePrivateFile(
		join(sessionDir(home, id), FILE),
		`${JSON.stringify({ name: chosen.name, model: chosen.model })}\n`,
	);
}
