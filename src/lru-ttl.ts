// lru-cache reads its clock for entries' ages at most once per `ttlResolution` ms (1 by default) and forgets that
// reading with a timer of as many ms, set again after each reading. On a thread that sleeps between requests the timer
// is a wake-up of its own after each request that touched the cache: one per export on the main thread, through the
// token cache, each costing more CPU than the export's JSON parse (issue 21, stop 39). A clock read on every check
// costs tens of nanoseconds and wakes nothing.
export const TTL_WITHOUT_TIMER = { ttlResolution: 0 } as const;
