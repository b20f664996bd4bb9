// The gate in front of the render threads: never more holders than places; a freed place goes to the group with the
// fewest renders running (earliest first among equals); a waiter whose signal aborts leaves the line.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createThreadGate } from '../../src/formats/thread-gate.js';

describe('createThreadGate', () => {
  test("a freed place goes to the group with the fewest renders running, not to the backlog's next", async () => {
    const gate = createThreadGate(2);
    const granted: string[] = [];
    const take = (name: string, group: string) =>
      gate.acquire(undefined, group).then((release) => {
        granted.push(name);
        return release;
      });
    const a1 = await take('a1', 'team-a');
    const a2 = await take('a2', 'team-a');
    const waiting = [take('a3', 'team-a'), take('a4', 'team-a'), take('b1', 'team-b')];
    assert.equal(gate.waiting(), 3);
    a1();
    await Promise.resolve();
    await Promise.resolve();
    // team-a holds one place, team-b none: b1 goes first although it came last.
    assert.deepEqual(granted.slice(2), ['b1']);
    a2();
    const releases = await Promise.all(waiting.slice(0, 1));
    assert.deepEqual(granted.slice(2), ['b1', 'a3']);
    for (const release of releases) release();
    (await waiting[2])();
    (await waiting[1])();
    assert.equal(gate.waiting(), 0);
  });

  test('a low waiter (a background thumbnail) gets a place only when no other waits (issue 14)', async () => {
    const gate = createThreadGate(1);
    const granted: string[] = [];
    const take = (name: string, group: string, low = false) =>
      gate.acquire(undefined, group, low).then((release) => {
        granted.push(name);
        return release;
      });
    const held = await take('a1', 'team-a');
    const thumb = take('thumb', '', true);
    const b1 = take('b1', 'team-b');
    const a2 = take('a2', 'team-a');
    held();
    (await b1)();
    (await a2)();
    (await thumb)();
    assert.deepEqual(granted, ['a1', 'b1', 'a2', 'thumb']);
  });

  test('an aborted waiter leaves the line and never holds a place', async () => {
    const gate = createThreadGate(1);
    const held = await gate.acquire();
    const controller = new AbortController();
    const waiter = gate.acquire(controller.signal);
    controller.abort(new Error('gone'));
    await assert.rejects(waiter, /gone/);
    assert.equal(gate.waiting(), 0);
    held();
    const again = await gate.acquire();
    again();
  });
});
