// The runtime's render threads: renders of the API (thumbnails today, exports later) run there, off the event loop.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PNG } from 'pngjs';
import { springSale } from './domain/design-fixtures.js';
import { startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('an imported design gets its thumbnail from the render threads, as a 400 px PNG of its first size', async () => {
  const pool = t.runtime.renderPool;
  const rendered: number[] = [];
  const render = pool.render.bind(pool);
  pool.render = async (job) => {
    const bytes = await render(job);
    rendered.push(bytes.length);
    return bytes;
  };
  const kit = await t.app.inject({
    method: 'POST',
    url: '/v1/brandkits/create',
    headers: t.owner.headers,
    payload: { name: 'Kit' },
  });
  const project = await t.app.inject({
    method: 'POST',
    url: '/v1/projects',
    headers: t.owner.headers,
    payload: { name: 'P', brandKitId: kit.json().response.brandKit.id },
  });
  const document = springSale();
  // No remote image: the thumbnail is drawn from shapes and text only.
  const elements = (document.sizes[0] as { slides: Array<{ elements: Array<{ type: string }> }> }).slides[0].elements;
  elements.splice(0, elements.length, ...elements.filter((e) => e.type !== 'image'));
  const imported = await t.app.inject({
    method: 'POST',
    url: '/v1/templates/import',
    headers: t.owner.headers,
    payload: { projectId: project.json().response.project.id, name: 'Spring', document },
  });
  assert.equal(imported.statusCode, 200, imported.body);
  // The answer does not wait for the thumbnail (issue 14): a background job renders it.
  await t.runtime.jobs.idle();
  assert.equal(rendered.length, 1, 'one render, through the pool');
  const hash: string = imported.json().response.template.id;
  const listed = await t.app.inject({
    method: 'GET',
    url: `/v1/templates?keyword=Spring&exactSearch=true`,
    headers: t.owner.headers,
  });
  const thumbUrl: string = listed.json().response.nodes.find((n: { id: string }) => n.id === hash).thumbUrl;
  const file = await t.download(thumbUrl);
  assert.equal(file.status, 200);
  const png = PNG.sync.read(file.body);
  assert.deepEqual([png.width, png.height], [400, 333]);
  // Top-left corner: the design's background colour #0F172A.
  assert.deepEqual([...png.data.subarray(0, 3)], [0x0f, 0x17, 0x2a]);
});
