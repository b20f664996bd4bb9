// Pathological content (issue 14): 20 text elements of 10 000 characters each, auto-fit down to 1 px. Its import and
// its document replacement answer without waiting for the thumbnail (a background job draws it, and thumbUrl serves
// it once it exists), and its export, rendered for real on the render threads, ends within its budget.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RenderJob } from '../../../src/formats/pool.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { decodePng } from '../../render/pixels.js';

const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);

/** 10 000 characters of words, as the schema allows at most. */
const LABEL = Array.from({ length: 2000 }, (_, i) => `word${i % 10}`)
  .join(' ')
  .slice(0, 10_000);

function pathological(name: string) {
  return {
    name,
    sizes: [
      {
        name: 'MPU',
        width: 300,
        height: 250,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            elements: Array.from({ length: 20 }, (_, i) => ({
              name: `t${i}`,
              type: 'text',
              x: 0,
              y: i * 12,
              width: 300,
              height: 12,
              text: LABEL,
              fontSize: 200,
              color: '#000000',
              autoFit: 'shrink',
              minFontSize: 1,
            })),
          },
        ],
      },
    ],
  };
}

describe('a pathological auto-fit document', () => {
  let t: TestApp;
  let projectId: number;
  /** Thumbnail renders are held here until the test lets them go, so the order of events is certain. */
  let held: (() => void)[] = [];
  const events: string[] = [];

  before(async () => {
    t = await startTestApp();
    const pool = t.runtime.renderPool;
    const render = pool.render.bind(pool);
    pool.render = async (job: RenderJob, options) => {
      if (!job.skipRejectedSources) return render(job, options);
      // A thumbnail: held until the test lets it go, or for 3 s at most, so that code answering only after the
      // thumbnail fails the order asserted below instead of hanging.
      await new Promise<void>((resolve) => {
        held.push(resolve);
        setTimeout(resolve, 3_000).unref();
      });
      try {
        return await render(job, options);
      } finally {
        events.push('thumbnail finished');
      }
    };
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response;
    };
    const kit = (await post('/v1/brandkits/create', { name: 'K' })).brandKit.id;
    projectId = (await post('/v1/projects', { name: 'P', brandKitId: kit })).project.id;
  });
  after(async () => {
    for (const release of held) release();
    await t.close();
  });

  /** Lets the held thumbnails render, and waits for the background jobs. */
  async function drawThumbnails() {
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const release = held;
    held = [];
    for (const go of release) go();
    await t.runtime.jobs.idle();
  }

  async function listedThumb(hash: string): Promise<string | null> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/templates?projectId=${projectId}`,
      headers: t.owner.headers,
    });
    return res.json().response.nodes.find((n: { id: string }) => n.id === hash)?.thumbUrl ?? null;
  }

  test('its import answers before its thumbnail renders; thumbUrl serves the thumbnail once it exists', async () => {
    const started = Date.now();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Pathological', document: pathological('Pathological') },
    });
    events.push('import answered');
    const answeredMs = Date.now() - started;
    assert.equal(res.statusCode, 200, res.body);
    const template = res.json().response.template;
    // Issue 15: thumbUrl is a string even before the thumbnail exists (the seed's type): a signed link to the
    // design's thumbnail that answers 404 with Retry-After until it is drawn, and the picture from then on.
    const pending = template.thumbUrl;
    assert.match(pending, new RegExp(`^http://placard\\.test/thumbnails/${template.id}\\.png\\?exp=\\d+&sig=[\\w-]+$`));
    const early = await t.download(pending);
    assert.equal(early.status, 404, early.body.toString());
    assert.equal(early.headers['retry-after'], '3');
    const envelope = JSON.parse(early.body.toString());
    assert.equal(envelope.code, 'NOT_FOUND');
    assert.match(envelope.error, /still being drawn/);
    assert.ok(envelope.requestId);
    t.app.log.info({ answeredMs }, 'pathological import answered');

    await drawThumbnails();
    assert.deepEqual(events.slice(0, 2), ['import answered', 'thumbnail finished']);
    const thumbUrl = await listedThumb(template.id);
    assert.ok(thumbUrl, 'the thumbnail exists once its job ran');
    assert.notEqual(thumbUrl, pending, 'once drawn the list links the stored picture itself');
    const stored = await t.download(thumbUrl);
    const png = decodePng(stored.body);
    assert.deepEqual([png.width, png.height], [400, 333]);
    // The link handed out before the thumbnail existed now serves that same picture.
    const late = await t.download(pending);
    assert.equal(late.status, 200);
    assert.equal(late.headers['content-type'], 'image/png');
    assert.ok(late.body.equals(stored.body));
    // A link that is not ours, or past its expiry, serves nothing.
    const forged = await t.download(pending.replace(/sig=[\w-]+/, 'sig=AAAA'));
    assert.equal(forged.status, 404);
    const exp = Number(/exp=(\d+)/.exec(pending)?.[1]);
    const moved = await t.download(pending.replace(/exp=\d+/, `exp=${exp + 1}`));
    assert.equal(moved.status, 404, 'the expiry is signed');

    // A replacement of its document answers before the new thumbnail too, and the new one replaces the old.
    events.length = 0;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/templates/${template.id}/document`,
      headers: t.owner.headers,
      payload: { document: pathological('Pathological 2') },
    });
    events.push('replace answered');
    assert.equal(put.statusCode, 200, put.body);
    const pendingNext = put.json().response.template.thumbUrl;
    assert.match(pendingNext, /\/thumbnails\/[a-z0-9]+\.png\?exp=/, 'the new revision has no thumbnail yet');
    assert.equal((await t.download(pendingNext)).status, 404);
    await drawThumbnails();
    assert.deepEqual(events.slice(0, 2), ['replace answered', 'thumbnail finished']);
    const next = await listedThumb(template.id);
    assert.ok(next && next !== thumbUrl);
  });

  test('its export renders for real and completes within its budget', async () => {
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: t.owner.headers,
      payload: { projectId, name: 'Pathological export', document: pathological('Pathological export') },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/export',
      headers: t.owner.headers,
      payload: { creativeHash: imported.json().response.template.id, type: 'png' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json().response.export.id;
    let found: { status: string; error?: unknown; creatives: { url: string }[] };
    for (;;) {
      found = (await t.app.inject({ method: 'GET', url: `/v1/export/${id}`, headers: t.owner.headers })).json()
        .response;
      if (TERMINAL.has(found.status)) break;
      // The held thumbnail of this import must not hold the test.
      for (const go of held.splice(0)) go();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(found.status, 'complete', JSON.stringify(found));
    const png = decodePng((await t.download(found.creatives[0].url)).body);
    assert.deepEqual([png.width, png.height], [300, 250]);
  });
});
