// Brand kit assets uploaded from disk (issue 18: "upload from disk with progress"): POST /v1/brandkit/{id}/assets,
// multipart/form-data. Each file is checked by content like a link's source, stored, and answered settled; a bad file is
// INVALID with its reason while the others are stored; bad requests change nothing.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';
import { png } from '../../render/media-fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field
type Json = any;

describe('POST /v1/brandkit/{id}/assets (multipart)', () => {
  let t: TestApp;
  let origin: string;
  let kit: number;

  async function upload(
    kitId: number,
    files: Array<[string, Buffer, string?]>,
    headers: Caller['headers'] = t.owner.headers,
    query = '',
  ) {
    const form = new FormData();
    for (const [name, bytes, field] of files) form.append(field ?? 'file', new Blob([bytes]), name);
    const res = await fetch(`${origin}/v1/brandkit/${kitId}/assets${query}`, { method: 'POST', headers, body: form });
    const text = await res.text();
    return { status: res.status, body: text, json: JSON.parse(text) as Json };
  }

  async function mediaRows(): Promise<number> {
    const row = await t.runtime.db.kysely
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n);
  }

  before(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkits/create',
      headers: t.owner.headers,
      payload: { name: 'Brand' },
    });
    kit = res.json().response.brandKit.id;
  });
  after(async () => {
    await t?.close();
  });

  test('stores each file VALID by content (name and declared type ignored); the stored file is the upload', async () => {
    const red = png(40, 30, [255, 0, 0]);
    const res = await upload(kit, [
      ['logo.png', red],
      ['not-a-png.txt', Buffer.from('hello, not an image')],
      ['photo', png(8, 8, [0, 0, 255])],
    ]);
    assert.equal(res.status, 200, res.body);
    const assets = res.json.response.assets;
    assert.deepEqual(
      assets.map((a: Json) => [a.name, a.fileName, a.status, a.type, a.format, a.width, a.height, a.src]),
      [
        ['logo', 'logo.png', 'VALID', 'IMAGE', 'png', 40, 30, 'upload:logo.png'],
        ['not-a-png', 'not-a-png.txt', 'INVALID', null, null, null, null, 'upload:not-a-png.txt'],
        ['photo', 'photo.png', 'VALID', 'IMAGE', 'png', 8, 8, 'upload:photo'],
      ],
    );
    assert.match(assets[1].error, /^not-a-png\.txt: is not an image, audio or video file this service accepts/);
    assert.equal(assets[0].size, red.length);
    // The stored file decodes to the uploaded pixels.
    const file = await t.download(assets[0].url);
    assert.equal(file.status, 200);
    const { data, info } = await sharp(file.body).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height, data[0], data[1], data[2]], [40, 30, 255, 0, 0]);

    // Listed like any other asset, and the upload is one brandkit/assetsUploaded event with the three assets.
    const listed = await t.app.inject({ method: 'GET', url: `/v1/brandkit/${kit}/assets`, headers: t.owner.headers });
    const names = listed.json().response.nodes.map((n: Json) => n.fileName);
    for (const name of ['logo.png', 'not-a-png.txt', 'photo.png']) assert.ok(names.includes(name), name);
    const events = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select('payload')
      .where('team_id', '=', t.owner.teamId)
      .where('action', '=', 'brandkit/assetsUploaded')
      .execute();
    assert.equal(events.length, 1);
    const payload = JSON.parse(events[0].payload);
    assert.deepEqual(payload.data.brandKit, { id: kit, name: 'Brand' });
    assert.deepEqual(
      payload.data.assets.map((a: Json) => a.status),
      ['VALID', 'INVALID', 'VALID'],
    );
  });

  test('a file over its type cap is INVALID naming the cap (a GIF over 1 MB)', async () => {
    const gifHeader = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1');
    const big = Buffer.concat([gifHeader, Buffer.alloc(1024 * 1024 + 10)]);
    const res = await upload(kit, [['huge.gif', big]]);
    assert.equal(res.status, 200, res.body);
    const [asset] = res.json.response.assets;
    assert.equal(asset.status, 'INVALID');
    assert.match(asset.error, /^huge\.gif: is a GIF image of .*more than the 1 MB .*allowed for GIF images$/);
  });

  test('bad requests are refused with the envelope and store nothing', async () => {
    const before = await mediaRows();
    const json = await fetch(`${origin}/v1/brandkit/${kit}/assets`, {
      method: 'POST',
      headers: { ...t.owner.headers, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(json.status, 415);
    assert.match(((await json.json()) as Json).error, /multipart\/form-data/);

    const wrongPart = await upload(kit, [['a.png', png(2, 2), 'image']]);
    assert.equal(wrongPart.status, 400);
    assert.equal(wrongPart.json.code, 'VALIDATION_FAILED');
    assert.match(wrongPart.json.error, /^image: unknown part/);

    const tooMany = await upload(
      kit,
      Array.from({ length: 11 }, (_, i): [string, Buffer] => [`f${i}.png`, png(2, 2)]),
    );
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.json.error, /^file: at most 10 files/);

    const badFolder = await upload(kit, [['a.png', png(2, 2)]], t.owner.headers, '?mediaFolderId=abc');
    assert.equal(badFolder.status, 400);
    assert.match(badFolder.json.error, /^mediaFolderId \(query\): must be an integer/);

    const viewer = await t.userWith('Viewer');
    const refused = await upload(kit, [['a.png', png(2, 2)]], viewer.headers);
    assert.equal(refused.status, 403);
    assert.equal(refused.json.code, 'FORBIDDEN');

    const rival = await t.newTeam('Rival');
    const hidden = await upload(kit, [['a.png', png(2, 2)]], rival.headers);
    assert.equal(hidden.status, 404);

    assert.equal(await mediaRows(), before);
  });
});
