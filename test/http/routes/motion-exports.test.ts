// GIF and MP4 exports over real HTTP: a set export zips one file per size, named as SPEC §6 names them; a running MP4
// shows its progress; a design too long to play is refused before anything is created.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ffprobePath } from '../../../src/render/media/media-probe.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { readZip } from '../../helpers/zip.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on.
type Json = Record<string, any>;

const TERMINAL = new Set(['complete', 'completeWithError', 'failed']);

function sized(name: string, width: number, height: number, seconds: number) {
  return {
    name,
    width,
    height,
    backgroundColor: '#FFFFFF',
    slides: [
      {
        duration: seconds,
        elements: [
          {
            name: 'spinner',
            type: 'shape',
            x: width / 4,
            y: height / 4,
            width: width / 2,
            height: height / 2,
            fill: '#1D4ED8',
            animations: [{ effect: 'rotate', direction: 'in', start: 0, duration: seconds, easing: 'linear' }],
          },
        ],
      },
    ],
  };
}

describe('GIF and MP4 exports over HTTP', () => {
  let t: TestApp;
  let origin: string;
  let projectId: number;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-motion-http-'));

  async function api(method: string, url: string, body?: unknown) {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: body === undefined ? t.owner.headers : { ...t.owner.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, json: (text ? JSON.parse(text) : null) as Json };
  }

  async function ok(method: string, url: string, body?: unknown) {
    const res = await api(method, url, body);
    assert.equal(res.status, 200, `${method} ${url}: ${res.body}`);
    return res.json.response;
  }

  async function importDesign(document: { name: string; sizes: unknown[] }): Promise<string> {
    return (await ok('POST', '/v1/templates/import', { projectId, name: document.name, document })).template.id;
  }

  /** Polls the export until it ends, keeping every progress value it saw. */
  async function waitFor(id: string, seen: number[] = []): Promise<Json> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const found = await ok('GET', `/v1/export/${id}`);
      seen.push(found.progress);
      if (TERMINAL.has(found.status)) return found;
      if (Date.now() > deadline) throw new Error(`export ${id} still ${found.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A stored file through its link, whichever store signed it (local disk or S3). */
  async function download(link: string): Promise<Buffer> {
    const res = await t.download(link);
    assert.equal(res.status, 200);
    return res.body;
  }

  before(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const kit = (await ok('POST', '/v1/brandkits/create', { name: 'Kit' })).brandKit.id;
    projectId = (await ok('POST', '/v1/projects', { name: 'Motion', brandKitId: kit })).project.id;
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('an MP4 set: one H.264 file per size in the zip, at targetFPS, each creative complete with progress 1', async () => {
    const hash = await importDesign({
      name: 'Spinner set',
      sizes: [sized('Rectangle', 300, 250, 2), sized('Leaderboard', 728, 90, 2)],
    });
    const accepted = await ok('POST', '/v1/export', {
      creativeHash: hash,
      type: 'MP4',
      exportSettings: { targetFPS: 12 },
    });
    assert.equal(accepted.export.type, 'MP4', 'the type as requested (seed)');
    const done = await waitFor(accepted.export.id);
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    assert.equal(done.progress, 1);
    const [set] = done.creatives;
    assert.deepEqual(
      set.creatives.map((c: Json) => [c.size.width, c.size.height, c.status, c.progress]),
      [
        [300, 250, 'complete', 1],
        [728, 90, 'complete', 1],
      ],
    );
    const files = await readZip(await download(set.zipUrl));
    assert.deepEqual([...files.keys()], ['Spinner set-300x250.mp4', 'Spinner set-728x90.mp4']);
    const file = path.join(dir, 'rect.mp4');
    fs.writeFileSync(file, files.get('Spinner set-300x250.mp4') as Buffer);
    const probed = JSON.parse(
      execFileSync(ffprobePath(), ['-v', 'error', '-count_frames', '-show_streams', '-of', 'json', file]).toString(),
    );
    const [video] = probed.streams;
    assert.deepEqual(
      [video.codec_name, video.width, video.height, video.r_frame_rate, Number(video.nb_read_frames)],
      ['h264', 300, 250, '12/1', 24],
    );
  });

  test('a running MP4 reports its progress between 0 and 1 before it completes', async () => {
    const hash = await importDesign({ name: 'Long', sizes: [sized('Story', 1080, 1920, 8)] });
    const accepted = await ok('POST', '/v1/export', { creativeHash: hash, type: 'mp4' });
    const seen: number[] = [];
    const done = await waitFor(accepted.export.id, seen);
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    const between = seen.filter((p) => p > 0 && p < 1);
    assert.ok(between.length > 0, `progress seen: ${[...new Set(seen)].join(', ')}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], 'progress never goes back');
  });

  test('a static GIF is one GIF89a file; the same request again is a cache hit', async () => {
    const hash = await importDesign({ name: 'Still', sizes: [sized('Rectangle', 300, 250, 2)] });
    const body = { creativeHash: hash, type: 'gif', exportSettings: { gifPreset: 'static' } };
    const done = await waitFor((await ok('POST', '/v1/export', body)).export.id);
    assert.equal(done.status, 'complete', JSON.stringify(done.errorLog));
    const gif = await download(done.creatives[0].url);
    assert.equal(gif.subarray(0, 6).toString(), 'GIF89a');
    const again = await fetch(`${origin}/v1/export`, {
      method: 'POST',
      headers: { ...t.owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(again.headers.get('x-cache'), 'HIT');
  });

  test('a design that plays longer than 5 minutes is refused for MP4 before anything is created', async () => {
    const long = sized('Long', 300, 250, 200);
    long.slides.push({ ...long.slides[0], elements: [] });
    const hash = await importDesign({ name: 'Too long', sizes: [long] });
    const before = await t.runtime.db.kysely.selectFrom('exports').select('id').execute();
    const res = await api('POST', '/v1/export', { creativeHash: hash, type: 'mp4' });
    assert.equal(res.status, 422, res.body);
    assert.match(res.json.error, /plays the slides of 300x250 for 400 s, longer than the 300 s/);
    const after = await t.runtime.db.kysely.selectFrom('exports').select('id').execute();
    assert.equal(after.length, before.length);
    // A static GIF is one frame: the length does not matter.
    assert.equal(
      (await api('POST', '/v1/export', { creativeHash: hash, type: 'gif', exportSettings: { gifPreset: 'static' } }))
        .status,
      200,
    );
  });
});
