/**
 * Puts the Trace so far where a restart finds it: flushed to its file (throws if it cannot be
 * written), then, with a host that copies it elsewhere, a promise that settles once the host has
 * (TraceShipHook); undefined when there is nothing to wait for.
 */
export type TracePersist = () => Promise<void> | undefined;
