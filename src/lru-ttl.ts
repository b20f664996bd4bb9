// lru-cache reads its clock for entries' ages at most once per `ttlResolution` ms (1 by default) and forgets that
// reading with a timer of as many ms, set again after each reading. On a thread that sleeps between requests the timer
// may wake it once more after each request that touched the cache (the token cache: after every request; issue 21,
// stop 39). A clock read on every check costs tens of nanoseconds and schedules nothing.
export const TTL_WITHOUT_TIMER = { ttlResolution: 0 } as const;
