import { useQuery } from "@tanstack/react-query";
import { api } from "../api/endpoints.js";
import type { UsageGroupBy } from "../api/server-types.js";

/** Server state, through TanStack Query; the tab's event stream keeps the sessions list current. */

export const SESSIONS_KEY = ["sessions"] as const;

export const useSessions = () => useQuery({ queryKey: SESSIONS_KEY, queryFn: api.sessions });

export const useAgents = () => useQuery({ queryKey: ["agents"], queryFn: api.agents, staleTime: 60_000 });

export const useCredentials = () => useQuery({ queryKey: ["credentials"], queryFn: api.credentials });

export const useUsage = (groupBy: UsageGroupBy) =>
	useQuery({ queryKey: ["usage", groupBy], queryFn: () => api.usage(groupBy), refetchInterval: 10_000 });
