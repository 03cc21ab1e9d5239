export { type ClientOptions, OmniloopClient } from "./client.js";
export { ApiError, ConnectionError } from "./errors.js";
export { markdownOf } from "./markdown.js";
export type { InputArgs, JsonRoute, RouteAnswer, RouteFrame, RouteInput, StreamRoute } from "./route-types.js";
export { type Frame, type ResumeOptions, readFrames, resumingFrames } from "./sse.js";
export { argumentsObject } from "./tool-arguments.js";
export { THINKING_LEVELS, WORKFLOW_STATUSES } from "./wire/constants.js";
export type { ErrorBody, ErrorCode } from "./wire/errors.js";
export type {
	DoneReason,
	ErrorInfo,
	InstructionFile,
	JsonObject,
	JsonValue,
	MessageOf,
	OmniMessage,
	OmniMessageType,
	Origin,
	RequestStatus,
	ToolCallStatus,
	Usage,
} from "./wire/messages.js";
export type { RouteName, RouteSpec, Routes } from "./wire/routes.js";
export type {
	AgentsAnswer,
	Checkpoint,
	CredentialInfo,
	FileChange,
	PendingConfirmation,
	RestoreAnswer,
	ServerEvent,
	SessionDetail,
	SessionLock,
	SessionSearch,
	SessionSearchHit,
	SessionStatus,
	SessionSummary,
	StoreErrorEvent,
	ThinkingLevel,
	TraceDamage,
	UsageGroup,
	UsageGroupBy,
	UsageRow,
} from "./wire/sessions.js";
export type {
	DecidedBy,
	Decision,
	PendingApproval,
	WorkflowStatus,
	WorkflowView,
} from "./wire/workflows.js";
