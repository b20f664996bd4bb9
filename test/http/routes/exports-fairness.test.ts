// Fair exports between teams (issue 14), through the app on either shape (the local job table, or BullMQ when
// REDIS_URL is set): one team's heavy export and its backlog of 15,000 files do not hold another team's single export
// back by more than a render or two, and a team cannot put more files in flight than its limit (429 TEAM_QUEUE_FULL).
// Renders are simulated (each takes a fixed time on a pool the test controls), so the assertions count renders, not
// seconds. The backlog is not drained: 15,000 renders are not what is tested, and closing the app with them queued
// is (stop() waits for the running ones and leaves the rest to the queue).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import type { RenderJob, RenderPool } from '../../../src/formats/pool.js';
import { renderJobsPerThread } from '../../../src/jobs/job-queue.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const RENDER_MS = 60;
const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);
/** The largest export the design limits allow: 100 sizes of 50 slides. */
const SIZES = 100;
const SLIDES = 50;
/** The service's default limit of files a team may have in flight (config.teamFilesInFlight). */
const TEAM_LIMIT = 16_000;

describe('exports are fair between teams', () => {
  let t: TestApp;
  let tiny: Uint8Array;
  /** Names of the documents whose render started, in order. */
  const started: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  /** Whether the heavy render had ended when the other team's export completed. */
  let heavyEnded = false;
  let smallDone!: () => void;
  const smallFinished = new Promise<void>((resolve) => {
    smallDone = resolve;
  });

  before(async () => {
    tiny = await sharp({ create: { width: 4, height: 4, channels: 4, background: '#ff0000' } })
      .png()
      .toBuffer();
    const render = async (job: RenderJob) => {
      if (job.skipRejectedSources) return tiny; // a thumbnail
      started.push(job.document.name);
      // The backlog's team waits for the test to open the gate, so that its files are all still in flight when
      // its limit is checked, however slowly this machine enqueues.
      if (job.document.name !== 'Small') await gate;
      if (job.document.name === 'Heavy') {
        // A render of a minute: it holds its slot until the other team's export is done (or 30 s, so that a failure
        // of fairness fails the assertions below instead of hanging the test).
        await Promise.race([smallFinished, new Promise((resolve) => setTimeout(resolve, 30_000))]);
        heavyEnded = true;
      }
      await new Promise((resolve) => setTimeout(resolve, RENDER_MS));
      return tiny;
    };
    const pool: RenderPool = {
      threads: 1,
      render,
      renderFiles: async (job) => ({ bytes: await render(job), warnings: [], backup: null }),
      readFont: () => Promise.reject(new Error('this test reads no fonts')),
      preflight: () => Promise.reject(new Error('this test runs no preflight')),
      queued: () => 0,
      close: async () => {},
    };
    t = await startTestApp({ renderPool: pool, teamFilesInFlight: TEAM_LIMIT, queueLimit: 100_000 });
  });
  after(() => t.close());

  async function designOf(caller: Caller, name: string, sizes: number, slides: number): Promise<string> {
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: caller.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const kit = (await post('/v1/brandkits/create', { name: 'K' })).brandKit.id;
    const project = (await post('/v1/projects', { name: 'P', brandKitId: kit })).project.id;
    const document = {
      name,
      sizes: Array.from({ length: sizes }, (_, i) => ({
        name: `S${i}`,
        width: 300 + i,
        height: 250,
        slides: Array.from({ length: slides }, () => ({ duration: 1, elements: [] })),
      })),
    };
    return (await post('/v1/templates/import', { projectId: project, name, document })).template.id;
  }

  const exportOf = (caller: Caller, hash: string, type: string) =>
    t.app.inject({ method: 'POST', url: '/v1/export', headers: caller.headers, payload: { creativeHash: hash, type } });

  async function finished(caller: Caller, id: string) {
    for (;;) {
      const res = (await t.app.inject({ method: 'GET', url: `/v1/export/${id}`, headers: caller.headers })).json()
        .response;
      if (TERMINAL.has(res.status)) return res;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  test("another team's single export runs next but one behind a heavy export and a 15,000-file backlog, and the backlog's team meets its limit", async () => {
    const busy = t.owner;
    const other = await t.newTeam('Other');
    const heavy = await designOf(busy, 'Heavy', 1, 1);
    const backlog = await designOf(busy, 'Backlog', SIZES, SLIDES);
    const more = await designOf(busy, 'More', 1, 20);
    const small = await designOf(other, 'Small', 1, 1);

    const heavyExport = await exportOf(busy, heavy, 'png');
    assert.equal(heavyExport.statusCode, 200, heavyExport.body);
    // 15,000 files of one team waiting: three exports of 5,000 files, then 20 more.
    for (const type of ['png', 'jpg', 'webp']) {
      const res = await exportOf(busy, backlog, type);
      assert.equal(res.statusCode, 200, res.body);
    }
    const jpgOfMore = await exportOf(busy, more, 'jpg');
    assert.equal(jpgOfMore.statusCode, 200, jpgOfMore.body);

    // The busy team is at 15,021 of its 16,000 files: 5,000 more pass its limit, and the answer names it (the second
    // PNG is no cache hit while the first is pending).
    const refused = await exportOf(busy, backlog, 'png');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().code, 'TEAM_QUEUE_FULL');
    assert.match(refused.json().error, /the team's limit is 16,000 files in flight/);
    assert.ok(Number(refused.headers['retry-after']) >= 1);

    // The other team is not refused for the queue the busy team filled, and is served next but one.
    open();
    const before = started.length;
    const mine = await exportOf(other, small, 'png');
    assert.equal(mine.statusCode, 200, mine.body);
    const done = await finished(other, mine.json().response.export.id);
    smallDone();
    assert.equal(done.status, 'complete');
    assert.equal(heavyEnded, false, "the other team's export waited for the heavy render");
    const busyRendersMeanwhile = started.slice(before, started.indexOf('Small')).length;
    // The jobs one thread takes at once (4 on local disk, 8 with an object store: jobs/job-queue.ts), one of them the
    // heavy one: at most those already taken when the other team's export came, and one more of the backlog's turn.
    const taken = renderJobsPerThread(t.runtime.blobs);
    assert.ok(
      busyRendersMeanwhile <= taken,
      `the backlog rendered ${busyRendersMeanwhile} files before the other team's (${taken} taken at once)`,
    );
    assert.ok(started.length < 1_000, 'the backlog had not drained');
  });
});
