import type { UsageGroupBy } from "@omniloop/client";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/endpoints.js";

/** Server state, through TanStack Query; the tab's event stream keeps the sessions list current. */

export const SESSIONS_KEY = ["sessions"] as const;

export const useSessions = () => useQuery({ queryKey: SESSIONS_KEY, queryFn: api.sessions });

export const WORKFLOWS_KEY = ["workflows"] as const;
const FINISHED = new Set(["completed", "failed", "cancelled"]);

/**
 * The workflow that drives this Session, while it lasts (undefined: none, or it ended; a chat is
 * open to the Session again then). The server tells a workflow's progress on no stream of the
 * tab's, so this asks again while one lasts.
 */
export function useWorkflowOf(sessionId: string) {
	return useQuery({
		queryKey: WORKFLOWS_KEY,
		queryFn: api.workflows,
		select: (workflows) => workflows.find((w) => w.sessionId === sessionId && !FINISHED.has(w.status)),
		refetchInterval: (query) =>
			query.state.data?.some((w) => w.sessionId === sessionId && !FINISHED.has(w.status)) === true ? 2_000 : false,
	});
}

export const useAgents = () => useQuery({ queryKey: ["agents"], queryFn: api.agents, staleTime: 60_000 });

export const useUsage = (groupBy: UsageGroupBy) =>
	useQuery({ queryKey: ["usage", groupBy], queryFn: () => api.usage(groupBy), refetchInterval: 10_000 });
