/** The enumerations a client lists (kept free of zod, so a browser bundle that needs only these gets no schema code). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export const WORKFLOW_STATUSES = ["running", "waiting_approval", "ready", "completed", "failed", "cancelled"] as const;
