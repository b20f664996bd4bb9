// The gate of `slots` places in front of the render threads. A free place goes to the waiter whose group (team) has
// the fewest renders running, the earliest first among equals: the job queue's fair order (jobs/fair.ts) survives the
// last wait before a thread. Hand-written (a few lines) rather than a dependency: a waiter must be able to leave the
// line when its signal aborts, and the pool must know how many wait.

export interface ThreadGate {
  /**
   * Resolves with the function that frees the place once one is free; rejects with the signal's reason on abort.
   * `group` (default: none, a group of its own) is what takes turns. A `low` waiter gets a place only when no other
   * waits (background thumbnails must not go ahead of any team's export).
   */
  acquire(signal?: AbortSignal, group?: string, low?: boolean): Promise<() => void>;
  /** Callers waiting for a place. */
  waiting(): number;
}

interface Waiter {
  group: string;
  low: boolean;
  grant: () => void;
  signal?: AbortSignal;
  onAbort: () => void;
}

export function createThreadGate(slots: number): ThreadGate {
  let free = slots;
  const line: Waiter[] = [];
  const running = new Map<string, number>();

  function releaser(group: string): () => void {
    running.set(group, (running.get(group) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (running.get(group) ?? 1) - 1;
      if (left === 0) running.delete(group);
      else running.set(group, left);
      if (line.length === 0) {
        free++;
        return;
      }
      let pick = 0;
      for (let i = 1; i < line.length; i++) {
        const [candidate, best] = [line[i], line[pick]];
        if (candidate.low !== best.low) {
          if (best.low) pick = i;
          continue;
        }
        if ((running.get(candidate.group) ?? 0) < (running.get(best.group) ?? 0)) pick = i;
      }
      const [next] = line.splice(pick, 1);
      next.signal?.removeEventListener('abort', next.onAbort);
      next.grant();
    };
  }

  return {
    acquire(signal, group = '', low = false) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (free > 0) {
        free--;
        return Promise.resolve(releaser(group));
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          group,
          low,
          signal,
          grant: () => resolve(releaser(group)),
          onAbort: () => {
            const at = line.indexOf(waiter);
            if (at >= 0) line.splice(at, 1);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener('abort', waiter.onAbort, { once: true });
        line.push(waiter);
      });
    },
    waiting: () => line.length,
  };
}
