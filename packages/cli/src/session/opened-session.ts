import type { Session, Usage } from "@omniloop/core";
import type { SessionFiles } from "./session-files.js";

export interface OpenOptions {
	agentId: string;
	/** Whether --agent was given (else agentId is the default). */
	agentGiven: boolean;
	configDir: string;
	/** Whether --config-dir was given (else configDir is the current folder). */
	configDirGiven: boolean;
	/** --model: a model name of omniloop.yaml, or provider:model. */
	model: string | undefined;
	/** --resume: a Session id (or the start of one). */
	resume: string | undefined;
	workspaceDir: string;
	env: NodeJS.ProcessEnv;
	/** --local: run in-process even when a local server is up. */
	local: boolean;
}

/**
 * What the chat needs of a Session: a core Session in-process, or a RemoteSession the local
 * server hosts (remote/remote-session.ts). A remote steer is answered over HTTP, hence the promise.
 */
export type ChatSession = Pick<Session, "id" | "run" | "compact" | "generateTitle" | "instructions" | "close"> & {
	steer(text: string): boolean | Promise<boolean>;
	skipReconnectWait(): boolean;
};

export interface OpenedSession {
	session: ChatSession;
	/** The Session's files and history for the file commands, in-process or on the server (session-files.ts). */
	files: SessionFiles;
	/** The URL of the local server hosting the Session, when attached (README "One world"). */
	attachedTo: string | undefined;
	/** $OMNILOOP_HOME: the Traces, the "always" grants, the titles. */
	home: string;
	reconnect: { maxRetries: number; compactionMaxRetries: number };
	/** The agent the Session runs (a resumed one's own). */
	agentId: string;
	/** The model's id as the Trace records it ("provider:model", "offline-demo"); --model's, when it names another. */
	modelId: string;
	resumed: boolean;
	demo: boolean;
	/** The folder the Session works in (a resumed one's own). */
	workspaceDir: string;
	/** The Session's usage so far (a resumed one's, from its Trace or the server). */
	usage: Usage;
	/** Which credential to set when the provider refuses the key. */
	credentialHint: () => string;
	/** A person's title for the Session (1 to 200 characters, trimmed); resolves with it as saved. */
	rename(title: string): Promise<string>;
	/** Removes the Session (one left without a message). */
	discard(): void | Promise<void>;
}
