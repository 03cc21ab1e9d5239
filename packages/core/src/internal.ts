// @omniloop/core/internal: what the omniloop hosts (the server, the CLI) need of core beyond the
// public API (docs/api.md). Not for users: these names change without notice.

export { defaultModelFromEnv, ProjectConfigFile } from "./config/project-config.js";
export { isPersonsMessage, personMessagesInContext } from "./engine/history/rewind.js";
export type { ActionGuard, TraceShipHook } from "./engine/loop-types.js";
export { makeMessage } from "./messages/constructors.js";
export { errorMessage } from "./messages/error-message.js";
export { parseMarkers, writeMarker } from "./messages/markers.js";
export { AlwaysAllowed } from "./session-store/always-allowed.js";
export { type ChosenModel, readChosenModel, writeChosenModel } from "./session-store/chosen-model.js";
export { promptTitle } from "./session-store/session-index.js";
export { findText, SEARCH_SCAN_LIMIT, type TextMatch } from "./session-store/session-search.js";
export { checkTitle, MAX_TITLE_LENGTH, renameSession, TitleError } from "./session-store/session-title.js";
export { processRuns } from "./tools/process-runs.js";
export { DEFAULT_SANDBOX_MODE, sandboxState } from "./tools/sandbox/sandbox-mode.js";
export { bubblewrapPath, type SandboxSupport, sandboxSupport } from "./tools/sandbox/sandbox-probe.js";
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, replacePrivateFile } from "./trace/private-files.js";
export { latestTraceNumber, sessionDir, traceFileName } from "./trace/trace-files.js";
export { readTrace } from "./trace/trace-reader.js";
