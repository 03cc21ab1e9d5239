import type { LoadedProjectConfig, ProjectConfig } from "@omniloop/core";
import { HttpError } from "../errors.js";
import type { WorkflowStep } from "./workflow-types.js";

export interface ResolvedWorkflow {
	name: string | null;
	steps: WorkflowStep[];
	approvalTimeoutMs: number | null;
}

const VARIABLE = /\{\{\s*(input|steps\.(\d+))\s*\}\}/g;

/**
 * A named workflow of omniloop.yaml as the runner runs it. Its templates may only name earlier
 * steps (`{{steps.N}}`, N before the step): a later one has no answer yet, which is a config error.
 */
export function namedWorkflow(project: LoadedProjectConfig, name: string): ResolvedWorkflow {
	const { config, file } = project;
	const workflow = config.workflows?.[name];
	if (workflow === undefined) {
		const known = Object.keys(config.workflows ?? {});
		throw new HttpError(
			"not_found",
			`workflow ${name} is not defined under workflows in ${file ?? "omniloop.yaml"} (${known.length > 0 ? known.join(", ") : "none defined"})`,
		);
	}
	for (const [index, step] of workflow.steps.entries()) {
		if (!("prompt" in step)) continue;
		for (const match of step.prompt.matchAll(VARIABLE)) {
			const referenced = match[2] === undefined ? -1 : Number(match[2]);
			if (referenced >= index) {
				throw new HttpError(
					"invalid_state",
					`${file}: workflows.${name}.steps.${index}.prompt: {{steps.${referenced}}} names a step that has not run by then (only steps before ${index})`,
				);
			}
		}
	}
	return { name, steps: workflow.steps, approvalTimeoutMs: workflow.approvalTimeoutMs ?? null };
}

/** The agent's own deadline for approvals (`agents.<id>.approvalTimeoutMs`), if any. */
export function agentApprovalTimeout(config: ProjectConfig, agentId: string): number | null {
	return config.agents[agentId]?.approvalTimeoutMs ?? null;
}

/** A step's prompt with `{{input}}` and `{{steps.N}}` (earlier steps' answers) filled in. */
export function renderPrompt(template: string, input: string, answers: readonly string[]): string {
	return template.replace(VARIABLE, (_match, _name: string, index: string | undefined) =>
		index === undefined ? input : (answers[Number(index)] ?? ""),
	);
}
