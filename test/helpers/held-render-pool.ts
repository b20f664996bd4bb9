// A render pool whose renders never end until `release` (then they fail): the files in flight stay exactly as many as
// were accepted, so tests of the queue's limits and estimates need no clock.
import type { RenderPool } from '../../src/formats/pool.js';

export function heldRenderPool(): { pool: RenderPool; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const wait = async () => {
    await held;
    throw new Error('stopped');
  };
  const pool: RenderPool = {
    threads: 1,
    render: wait,
    renderFiles: wait,
    queued: () => 0,
    close: async () => {},
    readFont: () => Promise.reject(new Error('this test reads no fonts')),
    preflight: () => Promise.reject(new Error('this test runs no preflight')),
  };
  return { pool, release };
}
