// Share-page comments over the public routes (issue 18): validation, replies only to threads of the same design,
// positions inside the size, resolve, reviews, the per-link rate limit, and threads in GET /v1/shareLink/{hash}.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO_DESIGNS } from '../../../src/cli/demo-designs.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('share-page comments', () => {
  let t: TestApp;
  let hash: string;
  let token: string;
  let sizeHash: string;
  before(async () => {
    t = await startTestApp();
    const h = t.owner.headers;
    const kit = (
      await t.app.inject({ method: 'POST', url: '/v1/brandkits/create', headers: h, payload: { name: 'K' } })
    ).json();
    const project = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/projects',
        headers: h,
        payload: { name: 'P', brandKitId: kit.response.brandKit.id },
      })
    ).json();
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/templates/import',
      headers: h,
      payload: { projectId: project.response.project.id, name: 'D', document: DEMO_DESIGNS[0].document },
    });
    hash = imported.json().response.template.id;
    const link = await t.app.inject({ method: 'GET', url: `/v1/shareLink/${hash}`, headers: h });
    token = link.json().response.shareLinkUrl.split('/share/')[1];
    const sizes = await t.app.inject({ method: 'GET', url: `/v1/templates/${hash}/design-sizes`, headers: h });
    sizeHash = sizes.json().response[0].hash;
  });
  after(() => t.close());

  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url: `/share/${token}${url}`, payload });

  test('bad input is a 4xx naming the field, and stores nothing', async () => {
    const cases: [object, number, RegExp][] = [
      [{ author: '', text: 'x' }, 400, /author/],
      [{ author: 'A', text: 'x'.repeat(2001) }, 400, /text/],
      [{ author: 'A', text: 'x', extra: 1 }, 400, /extra/],
      [{ author: 'A', text: 'x', position: { sizeHash: 'zzzzzzz', x: 1, y: 1 } }, 422, /sizeHash/],
      [{ author: 'A', text: 'x', position: { sizeHash, x: 5000, y: 1 } }, 400, /outside/],
      [{ author: 'A', text: 'x', parentId: '00000000-0000-4000-8000-000000000000' }, 404, /parentId/],
      [{ author: '\u0001\u0002', text: 'x' }, 400, /author/],
    ];
    for (const [payload, status, message] of cases) {
      const res = await post('/comments', payload);
      assert.equal(res.statusCode, status, `${JSON.stringify(payload)} → ${res.body}`);
      assert.match(res.json().error, message);
    }
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/share/AAAAAAAAAAAAAAAAAAAAAA/comments',
      payload: { author: 'A', text: 'x' },
    });
    assert.equal(unknown.statusCode, 404);
    const rows = await t.runtime.db.kysely.selectFrom('share_comments').select('id').execute();
    assert.equal(rows.length, 0);
  });

  test('a thread with a reply, resolved, and a review; the threads are in GET /v1/shareLink', async () => {
    const thread = await post('/comments', {
      author: 'Ann',
      text: '<script>x</script>',
      position: { sizeHash, x: 10, y: 20 },
    });
    assert.equal(thread.statusCode, 200, thread.body);
    const id = thread.json().response.id;
    assert.equal((await post('/comments', { author: 'Bob', text: 'ok', parentId: id })).statusCode, 200);
    assert.equal((await post(`/comments/${id}/resolve`, { resolved: true })).statusCode, 200);
    assert.equal((await post('/review', { author: 'Ann', decision: 'approve' })).statusCode, 200);
    const res = await t.app.inject({ method: 'GET', url: `/v1/shareLink/${hash}`, headers: t.owner.headers });
    const threads = res.json().response.comments.threads;
    assert.equal(threads.length, 1);
    assert.equal(threads[0].text, '<script>x</script>'); // stored as typed; every page renders it as text
    assert.deepEqual(threads[0].position, { sizeHash, x: 10, y: 20 });
    assert.equal(threads[0].resolved, true);
    assert.deepEqual(
      threads[0].replies.map((r: { author: string }) => r.author),
      ['Bob'],
    );
    const list = await t.app.inject({ method: 'GET', url: `/share/${token}/comments` });
    assert.equal(list.json().response.reviews[0].decision, 'approved');
  });

  test('writes are rate limited per link', async () => {
    let last = 0;
    for (let i = 0; i < 21 && last !== 429; i++)
      last = (await post('/comments', { author: 'Spam', text: `n${i}` })).statusCode;
    assert.equal(last, 429);
  });
});
