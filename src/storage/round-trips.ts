// Round trips this process made to Redis and to the object store (issue 21: where an export's time goes in the
// scaled-out shape). Process-wide, like the database's statement counter, because every Redis connection of the
// process (BullMQ duplicates the shared one) and the one S3 client feed it; /metrics reads it
// (placard_redis_*_total, placard_s3_*_total) and the Redis budget test reads it directly. No imports: the embedded
// shape reads zeros without loading ioredis or the AWS SDK.

export interface TierTally {
  /** Requests sent: Redis commands (blocking waits excluded), S3 HTTP requests (retries included). */
  requests: number;
  /**
   * Waits for an answer. Redis: a wait that begins on an idle connection; commands sent while others are unanswered
   * (a pipeline, a MULTI, calls made together) share it, commands awaited one after another count one each. S3: one
   * per request.
   */
  roundTrips: number;
  /** Milliseconds waited: Redis, the time its connections are busy; S3, summed over requests (they can overlap). */
  ms: number;
}

export interface RoundTrips {
  redis: TierTally & {
    /** Commands that wait on the server by design (a worker's BZPOPMIN): counted apart, their time is idle time. */
    blocking: number;
    /** Non-blocking commands by name, lower case. */
    byCommand: Map<string, number>;
  };
  s3: TierTally & { byOperation: Map<string, number> };
}

export const roundTrips: RoundTrips = {
  redis: { requests: 0, roundTrips: 0, ms: 0, blocking: 0, byCommand: new Map() },
  s3: { requests: 0, roundTrips: 0, ms: 0, byOperation: new Map() },
};

/** A copy of the counts now, to subtract from a later one. */
export function snapshotRoundTrips(): RoundTrips {
  return {
    redis: { ...roundTrips.redis, byCommand: new Map(roundTrips.redis.byCommand) },
    s3: { ...roundTrips.s3, byOperation: new Map(roundTrips.s3.byOperation) },
  };
}
