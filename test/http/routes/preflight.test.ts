// POST /v1/templates/{hash}/preflight over a real HTTP server, and preflight inside exports: creatives carry their
// findings, `preflight: "fail"` fails exactly the files with errors (PREFLIGHT_FAILED), `off` checks nothing.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, type FixtureMedia, startFixtureMedia } from '../../formats/preflight/fixtures.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field and asserted.
type Json = any;

const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);

/** A set of two sizes: the first fits, the second's headline overflows, and it carries a pale-on-pale subtitle. */
function campaign(): unknown {
  const text = (fields: Record<string, unknown>) => ({
    name: 'headline',
    type: 'text',
    x: 10,
    y: 10,
    fontSize: 20,
    fontVariant: '700',
    color: '#FFFFFF',
    text: 'Spring sale',
    ...fields,
  });
  return {
    name: 'Campaign',
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [{ elements: [text({ width: 280, height: 60 })] }],
      },
      {
        name: 'Leaderboard',
        width: 728,
        height: 90,
        backgroundColor: '#0F172A',
        slides: [
          {
            elements: [
              text({ width: 60, height: 24 }),
              {
                name: 'subtitle',
                type: 'text',
                x: 200,
                y: 40,
                width: 300,
                height: 30,
                fontSize: 14,
                color: '#1E293B',
                text: 'This weekend only',
              },
            ],
          },
        ],
      },
    ],
  };
}

describe('preflight over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let media: FixtureMedia;
  let projectId: number;
  let campaignHash: string;
  let sizeHashes: string[];

  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = t.owner.headers) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }

  async function ok(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await api(method, url, body, headers);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }

  async function importDesign(name: string, document: unknown): Promise<string> {
    return (await ok('POST', '/v1/templates/import', { projectId, name, document })).template.id;
  }

  async function waitForExport(id: string): Promise<Json> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = await ok('GET', `/v1/export/${id}`);
      if (TERMINAL.has(found.status)) return found;
      if (Date.now() > deadline) throw new Error(`export ${id} still ${found.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function count(table: 'exports' | 'designs'): Promise<number> {
    const row = await t.runtime.db.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n);
  }

  before(async () => {
    media = await startFixtureMedia();
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    projectId = (await ok('POST', '/v1/projects', { name: 'Campaigns', brandKitId: kit })).project.id;
    campaignHash = await importDesign('Campaign', campaign());
    sizeHashes = (await ok('GET', `/v1/templates/${campaignHash}/document`)).sizes.map((s: { hash: string }) => s.hash);
  });

  after(async () => {
    await t.close();
    await media.close();
  });

  test('answers findings and a summary, renders nothing and creates nothing', async () => {
    const before = { exports: await count('exports'), designs: await count('designs') };
    const res = await ok('POST', `/v1/templates/${campaignHash}/preflight`, {});
    const codes = res.findings.map((f: Json) => `${f.sizeHash}:${f.elementName}:${f.code}`);
    assert.ok(codes.includes(`${sizeHashes[1]}:headline:TEXT_OVERFLOW`), codes.join(', '));
    assert.ok(codes.includes(`${sizeHashes[1]}:subtitle:LOW_CONTRAST`), codes.join(', '));
    assert.ok(!codes.some((c: string) => c.startsWith(`${sizeHashes[0]}:`)), 'the first size is clean');
    assert.equal(res.findings[0].severity, 'error', 'errors come first');
    assert.equal(res.summary.error, res.findings.filter((f: Json) => f.severity === 'error').length);
    assert.equal(res.summary.warning, res.findings.filter((f: Json) => f.severity === 'warning').length);
    assert.deepEqual({ exports: await count('exports'), designs: await count('designs') }, before);
  });

  test('element changes are applied first; allowedSizeHashesOnly narrows the sizes', async () => {
    const res = await ok('POST', `/v1/templates/${campaignHash}/preflight`, {
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Sale' }] }],
      allowedSizeHashesOnly: [sizeHashes[1]],
    });
    assert.deepEqual(
      res.findings.map((f: Json) => f.code),
      ['LOW_CONTRAST'],
    );
    const withSource = await ok('POST', `/v1/templates/${campaignHash}/preflight`, {
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'TEXTCOLOR', value: '#1E293B' }] }],
      exportSettings: { allowedSizeHashesOnly: [sizeHashes[0]] },
    });
    assert.deepEqual(
      withSource.findings.map((f: Json) => `${f.elementName}:${f.code}`),
      ['headline:LOW_CONTRAST'],
    );
  });

  test('a SOURCE change that cannot be fetched is a finding, not an error of the request', async () => {
    const hash = await importDesign('Photo', media.document(FIXTURES.LOW_RESOLUTION_IMAGE.pass));
    const res = await ok('POST', `/v1/templates/${hash}/preflight`, {
      elementsChanges: [
        {
          elementName: 'photo',
          changes: [{ attribute: 'SOURCE', value: `http://127.0.0.1:${media.closedPort}/gone.png` }],
        },
      ],
    });
    assert.deepEqual(
      res.findings.map((f: Json) => f.code),
      ['SOURCE_UNREACHABLE'],
    );
    const scaled = await ok('POST', `/v1/templates/${hash}/preflight`, { type: 'jpeg', exportSettings: { scale: 4 } });
    assert.deepEqual(
      scaled.findings.map((f: Json) => f.code),
      ['LOW_RESOLUTION_IMAGE'],
    );
  });

  test('bad input is refused as export-with-changes refuses it; another team cannot see the template', async () => {
    const unknown = await api('POST', `/v1/templates/${campaignHash}/preflight`, {
      elementsChanges: [{ elementName: 'nope', changes: [{ attribute: 'LABEL', value: 'x' }] }],
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.code, 'UNKNOWN_ELEMENT');
    const typo = await api('POST', `/v1/templates/${campaignHash}/preflight`, { elementChanges: [] });
    assert.equal(typo.status, 400);
    assert.equal(typo.json.code, 'VALIDATION_FAILED');
    const size = await api('POST', `/v1/templates/${campaignHash}/preflight`, { allowedSizeHashesOnly: ['zzzzzzz'] });
    assert.equal(size.status, 422);
    assert.equal(size.json.code, 'UNKNOWN_SIZE_HASH');
    const type = await api('POST', `/v1/templates/${campaignHash}/preflight`, { type: 'tiff' });
    assert.equal(type.status, 400);
    const other = await t.newTeam('Other');
    const hidden = await api('POST', `/v1/templates/${campaignHash}/preflight`, {}, other.headers);
    assert.equal(hidden.status, 404);
    const viewer = await t.userWith('Viewer');
    await ok('POST', '/v1/project/users', { userId: viewer.userId, projectId });
    assert.equal((await api('POST', `/v1/templates/${campaignHash}/preflight`, {}, viewer.headers)).status, 200);
  });

  test('the OpenAPI document lists the route and the findings', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).json;
    const op = doc.paths['/v1/templates/{templateHash}/preflight'].post;
    assert.ok(op.responses['200']);
    assert.match(JSON.stringify(op), /TEXT_OVERFLOW/);
    assert.match(JSON.stringify(doc), /PREFLIGHT_FAILED/);
  });

  test('export creatives carry their findings; warn makes every file', async () => {
    const created = await ok('POST', '/v1/export', { creativeHash: campaignHash, type: 'png' });
    const done = await waitForExport(created.export.id);
    assert.equal(done.status, 'complete');
    const [first, second] = done.creatives[0].creatives;
    assert.equal(first.findings, undefined);
    const codes = second.findings.map((f: Json) => `${f.elementName}:${f.code}`);
    assert.deepEqual(codes, ['headline:TEXT_OVERFLOW', 'subtitle:LOW_CONTRAST']);
    assert.equal(second.findings[0].sizeHash, sizeHashes[1]);
    assert.ok(second.warnings.some((w: string) => w.startsWith('TEXT_OVERFLOW: Leaderboard (728x90), headline:')));
  });

  test('preflight "fail" fails exactly the files with errors, with PREFLIGHT_FAILED and the findings', async () => {
    const created = await ok('POST', '/v1/export', {
      creativeHash: campaignHash,
      type: 'png',
      exportSettings: { preflight: 'fail' },
    });
    const done = await waitForExport(created.export.id);
    assert.equal(done.status, 'completeWithError');
    const [first, second] = done.creatives[0].creatives;
    assert.equal(first.status, 'complete');
    assert.equal(second.status, 'failed');
    assert.equal(second.url, null);
    assert.equal(second.findings[0].code, 'TEXT_OVERFLOW');
    assert.equal(done.errorLog.code, 'PREFLIGHT_FAILED');
    assert.equal(done.errorLog.failures.length, 1);
    assert.equal(done.errorLog.failures[0].sizeHash, sizeHashes[1]);
    assert.match(done.errorLog.failures[0].message, /TEXT_OVERFLOW: Leaderboard \(728x90\), headline/);
    // Warnings alone never fail a file: the subtitle's LOW_CONTRAST did not stop the first size.
  });

  test('preflight "off" checks nothing', async () => {
    const created = await ok('POST', '/v1/export', {
      creativeHash: campaignHash,
      type: 'png',
      exportSettings: { preflight: 'off' },
    });
    const done = await waitForExport(created.export.id);
    assert.equal(done.status, 'complete');
    for (const creative of done.creatives[0].creatives) assert.equal(creative.findings, undefined);
    const bad = await api('POST', '/v1/export', {
      creativeHash: campaignHash,
      type: 'png',
      exportSettings: { preflight: 'sometimes' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /preflight/);
  });

  test('POST /v1/studio/preflight checks one size of an unsaved document; bad input is a 400 naming the field', async () => {
    const before = { exports: await count('exports'), designs: await count('designs') };
    const res = await ok('POST', '/v1/studio/preflight', { document: campaign(), sizeIndex: 1 });
    const overflow = res.findings.find((f: Json) => f.code === 'TEXT_OVERFLOW');
    assert.ok(overflow, JSON.stringify(res.findings));
    assert.equal(overflow.elementName, 'headline');
    // Sizes without a hash (a document never saved) are named by their index; only the asked size is checked.
    assert.ok(res.findings.every((f: Json) => f.sizeHash === 'size-1'));
    assert.equal(res.summary.error, res.findings.filter((f: Json) => f.severity === 'error').length);
    const fits = await ok('POST', '/v1/studio/preflight', { document: campaign(), sizeIndex: 0 });
    assert.deepEqual(
      fits.findings.filter((f: Json) => f.code === 'TEXT_OVERFLOW'),
      [],
    );

    const outside = await api('POST', '/v1/studio/preflight', { document: campaign(), sizeIndex: 2 });
    assert.equal(outside.status, 400, outside.body);
    assert.equal(outside.json.code, 'VALIDATION_FAILED');
    assert.match(outside.json.error, /sizeIndex 2 is not a size of the document/);
    const broken = await api('POST', '/v1/studio/preflight', { document: { name: 'x' }, sizeIndex: 0 });
    assert.equal(broken.status, 400, broken.body);
    assert.match(broken.json.error, /sizes/);
    const missing = await api('POST', '/v1/studio/preflight', { document: campaign() });
    assert.equal(missing.status, 400);
    assert.match(missing.json.error, /sizeIndex/);
    assert.deepEqual({ exports: await count('exports'), designs: await count('designs') }, before);
  });
});
