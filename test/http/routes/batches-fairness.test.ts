// A batch never starves other work (issue 22): while a 10,000-row batch of one team renders, another team's single
// export and the same team's single export complete while the batch has rendered only a handful more rows — they
// wait for the rows in flight (PLACARD_BATCH_ROWS_IN_FLIGHT), not behind the batch. No wall-clock assertions: the
// yardstick is the batch's own progress.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field.
type Json = Record<string, any>;

const ROWS = 10_000;

const tiny = (name: string) => ({
  name,
  sizes: [
    {
      name: 'Tiny',
      width: 20,
      height: 20,
      backgroundColor: '#000000',
      slides: [
        {
          duration: 5,
          elements: [
            { name: 'panel', type: 'shape', shape: 'rect', fill: '#FFFFFF', x: 0, y: 0, width: 20, height: 20 },
          ],
        },
      ],
    },
  ],
});

describe('batches and fairness', () => {
  let t: TestApp;

  async function ok(method: string, url: string, body: unknown, headers: Record<string, string>) {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
    return JSON.parse(res.body).response;
  }

  async function templateOf(headers: Record<string, string>, name: string): Promise<string> {
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' }, headers)).brandKit.id;
    const projectId = (await ok('POST', '/v1/projects', { name, brandKitId: kit }, headers)).project.id;
    return (await ok('POST', '/v1/templates/import', { projectId, name, document: tiny(name) }, headers)).template.id;
  }

  before(async () => {
    t = await startTestApp({ batchRowsInFlight: 8 });
  });

  after(async () => {
    await t?.close();
  });

  test("another team's export and the team's own export complete while a 10,000-row batch has barely moved", {
    timeout: 600_000,
  }, async () => {
    const batchTemplate = await templateOf(t.owner.headers, 'Batch');
    const other = await t.newTeam('Other');
    const otherTemplate = await templateOf(other.headers, 'Single');
    const ownTemplate = await templateOf(t.owner.headers, 'Own');
    const rows = Array.from({ length: ROWS }, (_, i) => ({ color: `#${(i % 4096).toString(16).padStart(3, '0')}` }));
    const { batch } = await ok(
      'POST',
      '/v1/batches',
      {
        templateHash: batchTemplate,
        type: 'png',
        rows,
        mapping: [{ elementName: 'panel', attribute: 'BGCOLOR', value: '{color}' }],
      },
      t.owner.headers,
    );
    assert.equal(batch.rowCount, ROWS);
    const progress = async () => (await ok('GET', `/v1/batches/${batch.id}`, undefined, t.owner.headers)).counts;
    // The batch is rendering at full width.
    for (let i = 0; (await progress()).succeeded < 20; i++) {
      assert.ok(i < 6000, 'the batch started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const [label, headers, hash] of [
      ['another team', other.headers, otherTemplate],
      ['the same team', t.owner.headers, ownTemplate],
    ] as const) {
      const before = (await progress()).succeeded;
      const exported = (await ok('POST', '/v1/export', { creativeHash: hash, type: 'png' }, headers)).export;
      let found: Json;
      for (;;) {
        found = await ok('GET', `/v1/export/${exported.id}`, undefined, headers);
        if (found.status !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const during = (await progress()).succeeded - before;
      assert.equal(found.status, 'complete', label);
      // Behind the batch it would wait for ~10,000 rows; beside it, for the rows in flight and a few turns.
      assert.ok(during < 200, `${label}: the batch rendered ${during} rows while the export waited`);
      assert.ok((await progress()).pending > ROWS / 2, 'the batch was still far from done');
    }
    // Done: cancel the rest (rows in flight finish), and the batch ends.
    await ok('POST', `/v1/batches/${batch.id}/cancel`, undefined, t.owner.headers);
    for (;;) {
      const b = await ok('GET', `/v1/batches/${batch.id}`, undefined, t.owner.headers);
      if (b.finishedAt) {
        assert.equal(b.status, 'cancelled');
        assert.equal(b.counts.pending + b.counts.running, 0);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
