// The expected wait of an export (issue 14: acceptance must not outrun completion silently). Exports were accepted
// three times faster than they finished, building minutes of backlog before the count limit answered 503. Here the
// wait is estimated from what is in flight and the recent render rate, both read from what every process shares (the
// database and the job queue), so an API process that renders nothing estimates as well as one that does:
// - the rate: export files finished in the last minute (JobQueue.finishedSince), per millisecond; fewer than
//   MIN_RATE_SAMPLE files in the window tell too little (a service just started, or idle) and give no estimate;
// - the position: renders take turns between teams (jobs/fair.ts), so the files served before an export's files are
//   its team's own in flight plus, of every other team, at most as many: a team with a small export waits behind one
//   render per busy team, not behind their backlogs. The estimate follows that rule, not the queue's total.
import type { JobQueue } from '../jobs/job-queue.js';

/** The window the render rate is measured over. */
export const RATE_WINDOW_MS = 60_000;
/** Files finished in the window below which the rate is unknown. */
export const MIN_RATE_SAMPLE = 20;

/** Where an export stands in the queue when accepted (the `queue` of the export answer). */
export interface QueueEstimate {
  /** Files of every team expected to render before the export's first file. */
  position: number;
  /** Milliseconds until its last file is expected to be rendered; null while the render rate is unknown. */
  expectedWaitMs: number | null;
}

export interface ExportWaitDeps {
  queue: Pick<JobQueue, 'finishedSince'>;
  /** Files waiting or rendering per team (exports repository). */
  unsettledByTeam(): Promise<Map<number, number>>;
  /**
   * How long the render rate read is reused (PLACARD_RENDER_RATE_TTL_MS): a one-minute rate hardly moves in a second,
   * and each read is a statement (job table) or a Redis round trip per export request. Default 0: read every time.
   */
  rateTtlMs?: number;
  now?: () => number;
}

export function createExportWait(deps: ExportWaitDeps) {
  const now = deps.now ?? Date.now;

  const ttlMs = deps.rateTtlMs ?? 0;
  /**
   * The last read of the finished count and when it was made; requests within the TTL share it, even in flight.
   * `value`: the count, once answered.
   */
  let lastRead: { at: number; finished: Promise<number>; value?: number } | null = null;

  /** Export files finished per millisecond over the last minute; null when too few finished to tell. */
  async function ratePerMs(): Promise<number | null> {
    const at = now();
    let read = lastRead;
    if (!read || at - read.at >= ttlMs) {
      const fresh: NonNullable<typeof lastRead> = {
        at,
        finished: deps.queue.finishedSince('export.creative', at - RATE_WINDOW_MS),
      };
      read = lastRead = fresh;
      fresh.finished.then(
        (value) => {
          fresh.value = value;
        },
        // A failed read is not reused.
        () => {
          if (lastRead === fresh) lastRead = null;
        },
      );
    }
    const finished = await read.finished;
    return finished >= MIN_RATE_SAMPLE ? finished / RATE_WINDOW_MS : null;
  }

  return {
    ratePerMs,

    /**
     * What ratePerMs answers now, when that is known without a read (answered within the TTL); undefined otherwise.
     * Null, as there: too few files finished to tell.
     */
    settledRatePerMs(): number | null | undefined {
      const read = lastRead;
      if (!read || read.value === undefined || now() - read.at >= ttlMs) return undefined;
      return read.value >= MIN_RATE_SAMPLE ? read.value / RATE_WINDOW_MS : null;
    },

    /**
     * Where an export of `files` files of `teamId` would stand if accepted now, with the counts it is made from (the
     * export service's count limits use them too: one query for all three rules). `unsettled`: the files in flight per
     * team when the caller has read them already (with the cache lookup, in one statement).
     */
    async estimate(
      teamId: number,
      files: number,
      unsettled?: Map<number, number>,
    ): Promise<QueueEstimate & { teamInFlight: number; totalInFlight: number }> {
      const [byTeam, rate] = await Promise.all([unsettled ?? deps.unsettledByTeam(), ratePerMs()]);
      const own = byTeam.get(teamId) ?? 0;
      // Fair turns: another team's files go first only up to the turn of this export's file (ties go to the earlier).
      let beforeFirst = own;
      let untilLast = own + files;
      let total = own;
      for (const [team, inFlight] of byTeam) {
        if (team === teamId) continue;
        beforeFirst += Math.min(inFlight, own + 1);
        untilLast += Math.min(inFlight, own + files);
        total += inFlight;
      }
      return {
        position: beforeFirst,
        expectedWaitMs: rate === null ? null : Math.ceil(untilLast / rate),
        teamInFlight: own,
        totalInFlight: total,
      };
    },

    /** Milliseconds to render every export file in flight at the recent rate; null while the rate is unknown. */
    async drainMs(): Promise<number | null> {
      const [byTeam, rate] = await Promise.all([deps.unsettledByTeam(), ratePerMs()]);
      if (rate === null) return null;
      let total = 0;
      for (const inFlight of byTeam.values()) total += inFlight;
      return Math.ceil(total / rate);
    },
  };
}

export type ExportWait = ReturnType<typeof createExportWait>;
