// A first-come gate of `slots` places in front of the render threads. Hand-written (a dozen lines) rather than a
// dependency: it must let a waiter leave the line when its signal aborts, and say how many wait.

export interface ThreadGate {
  /** Resolves with the function that frees the place once one is free; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Callers waiting for a place. */
  waiting(): number;
}

export function createThreadGate(slots: number): ThreadGate {
  let free = slots;
  const line: { grant: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  function releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = line.shift();
      if (next) {
        next.signal?.removeEventListener('abort', next.onAbort);
        next.grant();
      } else free++;
    };
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (free > 0) {
        free--;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const entry = {
          signal,
          grant: () => resolve(releaser()),
          onAbort: () => {
            const at = line.indexOf(entry);
            if (at >= 0) line.splice(at, 1);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener('abort', entry.onAbort, { once: true });
        line.push(entry);
      });
    },
    waiting: () => line.length,
  };
}
