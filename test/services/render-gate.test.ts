// The render gate of render URLs: a cap over every team and per team, round-robin turns, a bounded wait per team.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRenderGate, GateFullError } from '../../src/services/render-gate.js';

/** A task that runs until released, recording when it started. */
function controllable(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release: () => release(),
    fn: async () => {
      log.push(name);
      await done;
      return name;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('render gate', () => {
  test('a burst of one team does not make another wait behind it: turns alternate between teams', async () => {
    const gate = createRenderGate({ total: 2, perTeam: 2, queuePerTeam: 10 });
    const log: string[] = [];
    const a = Array.from({ length: 6 }, (_, i) => controllable(log, `a${i}`));
    const b = Array.from({ length: 2 }, (_, i) => controllable(log, `b${i}`));
    const runs = [...a.map((task) => gate.run(1, task.fn))];
    await tick();
    runs.push(...b.map((task) => gate.run(2, task.fn)));
    await tick();
    assert.deepEqual(log, ['a0', 'a1']);
    assert.deepEqual(gate.stats(), { running: 2, waiting: 6 });
    for (const task of [...a, ...b]) {
      task.release();
      await tick();
      await tick();
    }
    await Promise.all(runs);
    // After a0 and a1, team 2 got the next turn before team 1's burst went on.
    assert.deepEqual(log.slice(0, 4), ['a0', 'a1', 'a2', 'b0']);
    assert.ok(log.indexOf('b1') < log.indexOf('a5'), log.join(' '));
    assert.deepEqual(gate.stats(), { running: 0, waiting: 0 });
  });

  test('one team never holds more than its share, and a full queue refuses at once', async () => {
    const gate = createRenderGate({ total: 4, perTeam: 1, queuePerTeam: 1 });
    const log: string[] = [];
    const first = controllable(log, 'first');
    const second = controllable(log, 'second');
    const running = gate.run(1, first.fn);
    const waiting = gate.run(1, second.fn);
    await tick();
    assert.deepEqual(log, ['first']);
    await assert.rejects(
      gate.run(1, async () => 'third'),
      GateFullError,
    );
    // Another team is not held back by team 1's cap.
    assert.equal(await gate.run(2, async () => 'other'), 'other');
    first.release();
    second.release();
    assert.deepEqual(await Promise.all([running, waiting]), ['first', 'second']);
  });

  test('a failing render releases its slot', async () => {
    const gate = createRenderGate({ total: 1, perTeam: 1, queuePerTeam: 5 });
    await assert.rejects(
      gate.run(1, async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await gate.run(1, async () => 'next'), 'next');
    assert.deepEqual(gate.stats(), { running: 0, waiting: 0 });
  });
});
