// Admission of render-URL renders to the render threads: at most `total` at once over every team and `perTeam` for one
// team, waiting renders started round-robin between teams, and at most `queuePerTeam` waiting per team (then refused).
// The pool's thread gate (formats/thread-gate.ts) takes turns between teams, but a team's render URLs and its exports
// are one group there: keeping render-URL renders within `total` (and a team within `perTeam`) means a burst of links
// never fills the line in front of the threads, so exports — the team's own included — keep getting threads.
// Written by hand: p-limit and p-queue limit concurrency but know nothing of fairness between keys.

export interface RenderGateOptions {
  /** Renders at once, over every team. */
  total: number;
  /** Renders at once for one team. */
  perTeam: number;
  /** Renders waiting for one team beyond which `run` refuses at once. */
  queuePerTeam: number;
}

export class GateFullError extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} renders of the team are already waiting`);
    this.name = 'GateFullError';
  }
}

export interface RenderGate {
  /** Runs `fn` once admitted; throws GateFullError when the team's queue is full. */
  run<T>(team: number, fn: () => Promise<T>): Promise<T>;
  /** Renders running and waiting (tests, metrics). */
  stats(): { running: number; waiting: number };
}

export function createRenderGate(options: RenderGateOptions): RenderGate {
  let running = 0;
  const runningOf = new Map<number, number>();
  const waiting = new Map<number, Array<() => void>>();
  /** Teams with waiters, in the order they get their next turn. */
  const turns: number[] = [];

  function admit(team: number): void {
    running += 1;
    runningOf.set(team, (runningOf.get(team) ?? 0) + 1);
  }

  function canStart(team: number): boolean {
    return running < options.total && (runningOf.get(team) ?? 0) < options.perTeam;
  }

  function release(team: number): void {
    running -= 1;
    const left = (runningOf.get(team) ?? 1) - 1;
    if (left === 0) runningOf.delete(team);
    else runningOf.set(team, left);
    // The first team in turn order that may start takes the slot, then goes to the back of the line.
    for (let i = 0; i < turns.length && running < options.total; ) {
      const next = turns[i];
      if (!canStart(next)) {
        i += 1;
        continue;
      }
      const queue = waiting.get(next)!;
      const start = queue.shift()!;
      turns.splice(i, 1);
      if (queue.length) turns.push(next);
      else waiting.delete(next);
      admit(next);
      start();
    }
  }

  return {
    async run(team, fn) {
      if (canStart(team) && !waiting.has(team)) {
        admit(team);
      } else {
        const queue = waiting.get(team) ?? [];
        if (queue.length >= options.queuePerTeam) throw new GateFullError(queue.length);
        await new Promise<void>((resolve) => {
          queue.push(resolve);
          if (!waiting.has(team)) {
            waiting.set(team, queue);
            turns.push(team);
          }
        });
      }
      try {
        return await fn();
      } finally {
        release(team);
      }
    },
    stats: () => ({ running, waiting: [...waiting.values()].reduce((n, q) => n + q.length, 0) }),
  };
}
