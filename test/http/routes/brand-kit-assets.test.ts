// Brand kit assets (seed "Brand kit assets", SPEC §9, §11) through the whole stack: an upload answers at once with
// every asset PROCESSING; the processor then fetches each source from a real HTTP server on 127.0.0.1 and settles it
// VALID (stored, signed link that downloads the same bytes) or INVALID (the reason, nothing stored). Completion is
// awaited through the processor (idle()), never by sleeping.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../../src/app.js';
import type { App } from '../../../src/http/types.js';
import type { JobQueue } from '../../../src/jobs/job-queue.js';
import { createLocalJobQueue } from '../../../src/jobs/local-queue.js';
import { forbiddenAddressReason, type HostLookup } from '../../../src/net/url-guard.js';
import { createAssetFetcher, MB } from '../../../src/render/media/assets.js';
import { ffprobePath } from '../../../src/render/media/media-probe.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';
import {
  gif,
  type Handler,
  type MediaServer,
  png,
  pngHeaderOnly,
  startMediaServer,
  streamBytes,
  svg,
  wav,
} from '../../render/media-fixtures.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
type Headers = Caller['headers'];
type Media = Record<string, unknown> & { id: number; status: string; url: string | null; error: string | null };

const hasFfprobe = (() => {
  try {
    return fs.existsSync(ffprobePath());
  } catch {
    return false;
  }
})();

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const serve =
  (body: Buffer, type = 'application/octet-stream'): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
  };

function helpers(app: () => App, owner: () => Caller, jobs: () => Pick<JobQueue, 'idle'>) {
  return {
    upload: (payload: unknown, headers: Headers = owner().headers) =>
      app().inject({ method: 'POST', url: '/v1/brandkit/uploadAssets', headers, payload: payload as object }),
    list: (kitId: number, query = '', headers: Headers = owner().headers) =>
      app().inject({ method: 'GET', url: `/v1/brandkit/${kitId}/assets${query}`, headers }),
    createFolder: (payload: unknown, headers: Headers = owner().headers) =>
      app().inject({ method: 'POST', url: '/v1/brandkit/mediaFolders', headers, payload: payload as object }),
    listFolders: (kitId: number, headers: Headers = owner().headers) =>
      app().inject({ method: 'GET', url: `/v1/brandkit/${kitId}/mediaFolders`, headers }),
    async kit(name: string, headers: Headers = owner().headers): Promise<number> {
      const res = await app().inject({ method: 'POST', url: '/v1/brandkits/create', headers, payload: { name } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().response.brandKit.id;
    },
    /** Uploads, checks the immediate answer, waits for the processor and returns the settled assets in order. */
    async settled(payload: { brandkitId: number; sources: string[]; mediaFolderId?: number }): Promise<Media[]> {
      const res = await app().inject({
        method: 'POST',
        url: '/v1/brandkit/uploadAssets',
        headers: owner().headers,
        payload,
      });
      assert.equal(res.statusCode, 200, res.body);
      const accepted = res.json().response.assets as Media[];
      assert.deepEqual(
        accepted.map((a) => a.status),
        payload.sources.map(() => 'PROCESSING'),
      );
      await jobs().idle();
      const listed = await app().inject({
        method: 'GET',
        url: `/v1/brandkit/${payload.brandkitId}/assets?first=100`,
        headers: owner().headers,
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const byId = new Map((listed.json().response.nodes as Media[]).map((m) => [m.id, m]));
      return accepted.map((a) => byId.get(a.id)!);
    },
  };
}

function assertError(
  res: { statusCode: number; body: string; json(): { code: string; error: string } },
  status: number,
  code: string,
  error?: RegExp | string,
) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  if (typeof error === 'string') assert.equal(res.json().error, error);
  else if (error) assert.match(res.json().error, error);
}

/** The files stored for a brand kit's assets (the processor keys them assets/<kit id>/…). */
/** The files stored for a kit: on local disk, or in the app's bucket in the scaled-out shape. */
async function storedFiles(t: TestApp, kitId: number): Promise<string[]> {
  if (t.bucket) {
    const prefix = `assets/${kitId}/`;
    return (await t.bucket.keys()).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  }
  const dir = path.join(t.config.dataDir, 'blobs', 'assets', String(kitId));
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

async function events(t: TestApp, teamId = t.owner.teamId) {
  const rows = await t.runtime.db.kysely
    .selectFrom('events_outbox')
    .select(['action', 'payload'])
    .where('team_id', '=', teamId)
    .where('action', '=', 'brandkit/assetsUploaded')
    .orderBy('occurred_at', 'asc')
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as { data: { brandKit: unknown; assets: Media[] } });
}

describe('POST /v1/brandkit/uploadAssets', () => {
  let t: TestApp;
  let server: MediaServer;
  const logo = png(40, 30, [0, 128, 255]);
  before(async () => {
    t = await startTestApp();
    server = await startMediaServer();
    server.route('/brand/logo.png', serve(logo, 'image/png'));
    server.route('/page.png', serve(Buffer.from('<!DOCTYPE html><html><body>Sign in</body></html>'), 'image/png'));
    server.route('/big.gif', serve(gif(MB + 10), 'image/gif'));
    server.route('/30mb.png', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }); // chunked: the cap is enforced while streaming
      await streamBytes(res, pngHeaderOnly(4000, 2000), 30 * MB);
    });
  });
  after(async () => {
    await t.close();
    await server.close();
  });
  const h = helpers(
    () => t.app,
    () => t.owner,
    () => t.runtime.jobs,
  );

  test('answers at once with every asset PROCESSING; a PNG then ends VALID and its signed link downloads it', async () => {
    const kitId = await h.kit('Brand');
    const src = `${server.origin}/brand/logo.png`;
    const res = await h.upload({ brandkitId: kitId, sources: [src] });
    assert.equal(res.statusCode, 200);
    const [accepted] = res.json().response.assets;
    assert.deepEqual(accepted, {
      id: accepted.id,
      hash: accepted.hash,
      name: 'logo',
      fileName: 'logo.png',
      type: null,
      format: null,
      size: null,
      width: null,
      height: null,
      duration: null,
      status: 'PROCESSING',
      url: null,
      src,
      checksum: null,
      mediaFolderId: null,
      createdAt: accepted.createdAt,
      createdBy: t.owner.userId,
      error: null,
    });
    assert.match(accepted.hash, /^[a-z0-9]{7}$/);
    assert.match(accepted.createdAt, ISO_MS);

    await t.runtime.jobs.idle();
    const listed = (await h.list(kitId)).json().response;
    assert.equal(listed.totalCount, 1);
    const asset = listed.nodes[0];
    assert.deepEqual(asset, {
      ...accepted,
      type: 'IMAGE',
      format: 'png',
      size: logo.length,
      width: 40,
      height: 30,
      status: 'VALID',
      url: asset.url,
      checksum: sha256(logo),
    });
    if (t.bucket) {
      // Scaled out: a presigned link of the bucket, downloaded from the S3 server itself.
      const { endpoint, bucket } = t.bucket.settings;
      assert.ok(asset.url.startsWith(`${endpoint}/${bucket}/assets/${kitId}/${accepted.hash}.png?`), asset.url);
      const download = await fetch(asset.url);
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), logo);
      assert.equal(download.headers.get('content-type'), 'image/png');
      assert.match(String(download.headers.get('content-disposition')), /filename="logo\.png"/);
    } else {
      assert.ok(
        asset.url.startsWith(`${t.config.publicUrl}/files/assets/${kitId}/${accepted.hash}.png?exp=`),
        asset.url,
      );
      const download = await t.app.inject({ method: 'GET', url: asset.url.replace(t.config.publicUrl, '') });
      assert.equal(download.statusCode, 200);
      assert.deepEqual(download.rawPayload, logo);
      assert.equal(download.headers['content-type'], 'image/png');
      assert.match(String(download.headers['content-disposition']), /filename="logo\.png"/);
    }

    const row = await t.runtime.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('id', '=', accepted.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.blob_key, `assets/${kitId}/${accepted.hash}.png`);
    assert.equal(row.attempts, 1);
    assert.equal(row.lease_until, null);
    assert.equal(row.team_id, t.owner.teamId);

    const [event] = await events(t);
    assert.deepEqual(event.data.brandKit, { id: kitId, name: 'Brand' });
    assert.deepEqual(
      event.data.assets.map((a) => [a.id, a.status, a.checksum]),
      [[accepted.id, 'VALID', sha256(logo)]],
    );
  });

  test('each malicious source ends INVALID with the reason, and nothing is stored', async () => {
    const kitId = await h.kit('Hostile');
    const eventsBefore = (await events(t)).length;
    const sources = [
      `${server.origin}/page.png`,
      `${server.origin}/30mb.png`,
      `${server.origin}/big.gif`,
      'https://www.dropbox.com/s/abc123/logo.png?dl=0',
      'https://drive.google.com/file/d/1AbC-d_E2/view?usp=sharing',
      `${server.origin}/missing.png`,
    ];
    const assets = await h.settled({ brandkitId: kitId, sources });
    const expected: RegExp[] = [
      /\/page\.png: is not an image, audio or video file this service accepts: it looks like an HTML page$/,
      /\/30mb\.png: a PNG image is larger than the 20 MB allowed for images$/,
      /\/big\.gif: is a GIF image of 1048586 bytes, more than the 1 MB \(1048576 bytes\) allowed for GIF images$/,
      /^https:\/\/www\.dropbox\.com\/s\/abc123\/logo\.png\?dl=0: is a file-hosting link .*direct public link/,
      /^https:\/\/drive\.google\.com\/file\/d\/1AbC-d_E2\/view\?usp=sharing: is a file-hosting link/,
      /\/missing\.png: answered HTTP 404; the file must be publicly downloadable$/,
    ];
    assets.forEach((asset, i) => {
      assert.equal(asset.status, 'INVALID', sources[i]);
      assert.match(String(asset.error), expected[i], sources[i]);
      assert.deepEqual(
        [asset.type, asset.format, asset.size, asset.width, asset.height, asset.checksum, asset.url],
        [null, null, null, null, null, null, null],
        sources[i],
      );
    });
    assert.deepEqual(await storedFiles(t, kitId), []);
    const rows = await t.runtime.db.kysely
      .selectFrom('media')
      .select(['blob_key', 'attempts'])
      .where('brand_kit_id', '=', kitId)
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.blob_key, r.attempts]),
      sources.map(() => [null, 1]),
    );
    // One event for the whole upload, once every asset has settled.
    const after = await events(t);
    assert.equal(after.length, eventsBefore + 1);
    assert.deepEqual(
      after.at(-1)!.data.assets.map((a) => a.status),
      sources.map(() => 'INVALID'),
    );
    assert.equal((await h.list(kitId)).json().response.totalCount, sources.length);
  });

  test('each source is its own asset: a bad one does not fail the good ones', async () => {
    const kitId = await h.kit('Mixed');
    const assets = await h.settled({
      brandkitId: kitId,
      sources: [`${server.origin}/page.png`, `${server.origin}/brand/logo.png`],
    });
    assert.deepEqual(
      assets.map((a) => a.status),
      ['INVALID', 'VALID'],
    );
    assert.deepEqual(await storedFiles(t, kitId), [`${assets[1].hash}.png`]);
  });

  test('a Viewer gets 403; another team gets 404 for every role; an Editor may upload', async () => {
    const kitId = await h.kit('Guarded');
    const src = `${server.origin}/brand/logo.png`;
    const viewer = await t.userWith('Viewer');
    assertError(
      await h.upload({ brandkitId: kitId, sources: [src] }, viewer.headers),
      403,
      'FORBIDDEN',
      `brand kit ${kitId}: this change needs the Editor role or a stronger one; the caller is Viewer`,
    );
    const other = await t.newTeam('Globex');
    const otherViewer = await t.userWith('Viewer', other);
    for (const headers of [other.headers, otherViewer.headers]) {
      assertError(
        await h.upload({ brandkitId: kitId, sources: [src] }, headers),
        404,
        'NOT_FOUND',
        `brandkitId: brand kit ${kitId} does not exist in this team`,
      );
    }
    const count = await t.runtime.db.kysely
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('brand_kit_id', '=', kitId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);

    const editor = await t.userWith('Editor');
    const res = await h.upload({ brandkitId: kitId, sources: [src] }, editor.headers);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().response.assets[0].createdBy, editor.userId);
    await t.runtime.jobs.idle();
  });

  test('mediaFolderId: a folder of the kit files the assets; of another kit 422; of no kit of the team 404', async () => {
    const kitId = await h.kit('Filed');
    const otherKit = await h.kit('Elsewhere');
    const folder = (await h.createFolder({ brandkitId: kitId, name: 'Logos' })).json().response.mediaFolder;
    const foreign = (await h.createFolder({ brandkitId: otherKit, name: 'Theirs' })).json().response.mediaFolder;
    const src = `${server.origin}/brand/logo.png`;

    const res = await h.upload({ brandkitId: kitId, mediaFolderId: folder.id, sources: [src] });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().response.assets[0].mediaFolderId, folder.id);
    await t.runtime.jobs.idle();

    assertError(
      await h.upload({ brandkitId: kitId, mediaFolderId: foreign.id, sources: [src] }),
      422,
      'UNPROCESSABLE',
      `mediaFolderId: media folder ${foreign.id} belongs to brand kit ${otherKit}, not to brand kit ${kitId}`,
    );
    const stranger = await t.newTeam('Initech');
    const strangerKit = await h.kit('Initech kit', stranger.headers);
    const strangerFolder = (await h.createFolder({ brandkitId: strangerKit, name: 'x' }, stranger.headers)).json()
      .response.mediaFolder;
    for (const id of [strangerFolder.id, 999999]) {
      assertError(
        await h.upload({ brandkitId: kitId, mediaFolderId: id, sources: [src] }),
        404,
        'NOT_FOUND',
        `mediaFolderId: media folder ${id} does not exist in this team`,
      );
    }
  });

  test('each bad body is a 400 VALIDATION_FAILED naming the field and the rule', async () => {
    const kitId = await h.kit('Strict');
    const cases: [unknown, string][] = [
      [{ brandkitId: kitId }, 'sources: is required'],
      [{ brandkitId: kitId, sources: [] }, 'sources: must hold at least 1 item(s)'],
      [
        { brandkitId: kitId, sources: ['ftp://files.example.com/a.png'] },
        'sources[0]: must be an http or https link, received "ftp://files.example.com/a.png"',
      ],
      [
        { brandkitId: kitId, sources: ['not a link'] },
        'sources[0]: must be an http or https link, received "not a link"',
      ],
      [
        { brandkitId: kitId, sources: Array(51).fill('https://cdn.example.com/a.png') },
        'sources: must hold at most 50 items',
      ],
      [{ brandkitId: 'x', sources: ['https://cdn.example.com/a.png'] }, 'brandkitId: must be an integer, received "x"'],
      [
        { brandkitId: kitId, sources: ['https://cdn.example.com/a.png'], folder: 1 },
        'folder: is not a known field (known fields: brandkitId, mediaFolderId, sources)',
      ],
    ];
    for (const [payload, error] of cases) {
      const res = await h.upload(payload);
      assertError(res, 400, 'VALIDATION_FAILED');
      assert.match(
        res.json().error,
        new RegExp(`^${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        JSON.stringify(payload),
      );
    }
    assert.equal((await h.list(kitId)).json().response.totalCount, 0);
  });

  test('deleting a brand kit takes its assets, their files, uploads and media folders with it', async () => {
    const kitId = await h.kit('Short-lived');
    const folder = (await h.createFolder({ brandkitId: kitId, name: 'F' })).json().response.mediaFolder;
    await h.settled({ brandkitId: kitId, mediaFolderId: folder.id, sources: [`${server.origin}/brand/logo.png`] });
    const keys = (
      await t.runtime.db.kysely.selectFrom('media').select('blob_key').where('brand_kit_id', '=', kitId).execute()
    ).map((r) => r.blob_key as string);
    assert.equal(keys.length, 1);
    assert.equal(await t.runtime.blobs.exists(keys[0]), true);
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/brandkits',
      headers: t.owner.headers,
      payload: { brandkitId: kitId },
    });
    assert.equal(res.statusCode, 200, res.body);
    const db = t.runtime.db.kysely;
    for (const table of ['media', 'media_uploads', 'media_folders'] as const) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('brand_kit_id', '=', kitId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 0, table);
    }
    assertError(await h.list(kitId), 404, 'NOT_FOUND');
    assert.equal(await t.runtime.blobs.exists(keys[0]), false, 'the stored file is deleted too');
  });

  test('needs a bearer token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/brandkit/uploadAssets',
      payload: { brandkitId: 1, sources: ['https://cdn.example.com/a.png'] },
    });
    assertError(res, 401, 'UNAUTHENTICATED');
  });
});

describe('uploadAssets without private addresses (PLACARD_ALLOW_PRIVATE_URLS=false)', () => {
  let t: TestApp;
  let server: MediaServer;
  before(async () => {
    t = await startTestApp({ allowPrivateUrls: false });
    server = await startMediaServer();
    server.route('/ok.png', serve(png(8, 8), 'image/png'));
  });
  after(async () => {
    await t.close();
    await server.close();
  });
  const h = helpers(
    () => t.app,
    () => t.owner,
    () => t.runtime.jobs,
  );

  test('a source on a loopback or private address ends INVALID without a request being made', async () => {
    const kitId = await h.kit('Internal');
    const sources = [
      `${server.origin}/ok.png`,
      `http://localhost:${server.port}/ok.png`,
      'http://169.254.169.254/latest/meta-data/iam.png',
      'http://10.0.0.5/logo.png',
    ];
    const assets = await h.settled({ brandkitId: kitId, sources });
    const expected = [
      `${server.origin}/ok.png: points at 127.0.0.1, a loopback address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)`,
      new RegExp(
        `^http://localhost:${server.port}/ok\\.png: resolves to (127\\.0\\.0\\.1|::1), a loopback address \\(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\\)$`,
      ),
      'http://169.254.169.254/latest/meta-data/iam.png: points at 169.254.169.254, a link-local address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)',
      'http://10.0.0.5/logo.png: points at 10.0.0.5, a private address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)',
    ];
    assets.forEach((asset, i) => {
      assert.equal(asset.status, 'INVALID');
      const want = expected[i];
      if (typeof want === 'string') assert.equal(asset.error, want);
      else assert.match(String(asset.error), want);
    });
    assert.equal(server.hits.get('/ok.png') ?? 0, 0);
    assert.deepEqual(await storedFiles(t, kitId), []);
  });
});

describe('uploadAssets: a redirect from a public host to a private one', () => {
  let t: TestApp;
  let app: App;
  let jobs: JobQueue;
  let server: MediaServer;
  before(async () => {
    t = await startTestApp({ allowPrivateUrls: false });
    server = await startMediaServer();
    server.route('/ok.png', serve(png(8, 8), 'image/png'));
    server.route('/bounce.png', (_req, res) => {
      res.writeHead(302, { location: `http://internal.test:${server.port}/ok.png` }).end();
    });
    // DNS played by the test: cdn.test is "public" (it is the test server); internal.test is a private address.
    const table: Record<string, string> = { 'cdn.test': '127.0.0.1', 'internal.test': '10.0.0.5' };
    const lookup: HostLookup = async (hostname) => {
      const address = table[hostname];
      if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address, family: 4 }];
    };
    // Only this app's asset jobs may take the rows: the harness's own queue stops claiming jobs.
    await t.runtime.jobs.stop();
    // Its own job queue: a queue takes one handler per kind, and the harness's app registered them on its own.
    jobs = createLocalJobQueue({ db: t.runtime.db.kysely, dialect: t.runtime.db.dialect });
    app = await buildApp({
      ...t.runtime,
      logger: false,
      jobs,
      assetFetcher: createAssetFetcher({
        allowPrivateUrls: false,
        cacheBytes: 0,
        lookup,
        addressRule: (address) => (address === '127.0.0.1' ? null : forbiddenAddressReason(address)),
      }),
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await t.close();
    await server.close();
  });
  const h = helpers(
    () => app,
    () => t.owner,
    () => jobs,
  );

  test('every hop is checked: the redirect target ends the asset INVALID and is never requested', async () => {
    const kitId = await h.kit('Redirected');
    const direct = `http://cdn.test:${server.port}/ok.png`;
    const bounce = `http://cdn.test:${server.port}/bounce.png`;
    const [ok, bounced] = await h.settled({ brandkitId: kitId, sources: [direct, bounce] });
    assert.equal(ok.status, 'VALID');
    assert.equal(bounced.status, 'INVALID');
    assert.equal(
      bounced.error,
      `${bounce}: redirected to http://internal.test:${server.port}/ok.png, which resolves to 10.0.0.5, a private address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)`,
    );
    assert.equal(server.hits.get('/bounce.png'), 1);
    assert.equal(server.hits.get('/ok.png'), 1); // the direct source only
    assert.deepEqual(await storedFiles(t, kitId), [`${ok.hash}.png`]);
  });
});

describe('GET /v1/brandkit/{id}/assets', () => {
  let t: TestApp;
  let server: MediaServer;
  let kitId: number;
  let folderId: number;
  const all: Media[] = [];
  before(async () => {
    t = await startTestApp();
    server = await startMediaServer();
    server.route('/red.png', serve(png(10, 10, [255, 0, 0])));
    server.route('/green.png', serve(png(12, 12, [0, 255, 0])));
    server.route('/spinner.gif', serve(gif()));
    server.route('/mark.svg', serve(svg()));
    server.route('/photo', serve(png(20, 10))); // no extension: the file name gets the format's
    server.route('/broken.png', serve(Buffer.from('{"error":"nope"}')));
    server.route('/jingle.wav', serve(wav(1)));
    const h = helpers(
      () => t.app,
      () => t.owner,
      () => t.runtime.jobs,
    );
    kitId = await h.kit('Listed');
    folderId = (await h.createFolder({ brandkitId: kitId, name: 'Icons' })).json().response.mediaFolder.id;
    const s = (p: string) => `${server.origin}${p}`;
    all.push(
      ...(await h.settled({
        brandkitId: kitId,
        sources: [s('/red.png'), s('/photo'), s('/broken.png'), s('/jingle.wav')],
      })),
    );
    all.push(
      ...(await h.settled({
        brandkitId: kitId,
        mediaFolderId: folderId,
        sources: [s('/spinner.gif'), s('/mark.svg'), s('/green.png')],
      })),
    );
  });
  after(async () => {
    await t.close();
    await server.close();
  });
  const h = helpers(
    () => t.app,
    () => t.owner,
    () => t.runtime.jobs,
  );
  const ids = async (query: string, headers?: Headers) => {
    const res = await h.list(kitId, query, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.nodes.map((n: Media) => n.id);
  };
  const byName = (name: string) => all.find((m) => m.name === name)!.id;

  test('every asset whatever its status, newest first, with totalCount and pageInfo', async () => {
    const body = (await h.list(kitId)).json().response;
    assert.equal(body.totalCount, 7);
    assert.deepEqual(body.pageInfo, { hasNextPage: false, endCursor: body.pageInfo.endCursor });
    assert.deepEqual(
      body.nodes.map((n: Media) => n.id),
      all.map((m) => m.id).sort((a, b) => b - a),
    );
    const photo = body.nodes.find((n: Media) => n.id === byName('photo'));
    assert.deepEqual([photo.name, photo.fileName, photo.format, photo.width], ['photo', 'photo.png', 'png', 20]);
    const broken = body.nodes.find((n: Media) => n.id === byName('broken'));
    assert.deepEqual([broken.status, broken.url], ['INVALID', null]);
    assert.match(
      broken.error,
      /broken\.png: is not an image, audio or video file this service accepts: it looks like JSON$/,
    );
    const svgAsset = body.nodes.find((n: Media) => n.id === byName('mark'));
    assert.deepEqual([svgAsset.type, svgAsset.format, svgAsset.width, svgAsset.height], ['IMAGE', 'svg', 120, 60]);
    const jingle = body.nodes.find((n: Media) => n.id === byName('jingle'));
    assert.deepEqual(
      [jingle.status, jingle.type, jingle.format, jingle.width, jingle.height],
      ['VALID', 'AUDIO', 'wav', null, null],
    );
    // The duration comes from ffprobe; without one it is unknown (null) rather than guessed.
    if (hasFfprobe) assert.ok(Math.abs(Number(jingle.duration) - 1) < 0.01, `duration ${jingle.duration}`);
  });

  test('filters: parentId, search, mediaType, mediaFormat, and their combination', async () => {
    assert.deepEqual(
      (await ids(`?parentId=${folderId}`)).sort(),
      [byName('spinner'), byName('mark'), byName('green')].sort(),
    );
    assert.deepEqual(await ids('?search=RE'), [byName('green'), byName('red')]);
    assert.deepEqual(await ids('?mediaFormat=gif'), [byName('spinner')]);
    assert.deepEqual(await ids('?mediaFormat=svg&mediaType=IMAGE'), [byName('mark')]);
    assert.deepEqual(await ids('?mediaType=VIDEO'), []);
    assert.deepEqual(await ids('?mediaType=AUDIO'), [byName('jingle')]);
    assert.deepEqual(await ids(`?mediaFormat=png&parentId=${folderId}`), [byName('green')]);
    assert.deepEqual(await ids('?search=%25'), []); // a LIKE wildcard is a plain character
    const total = (q: string) => h.list(kitId, q).then((r) => r.json().response.totalCount);
    assert.equal(await total('?mediaFormat=png'), 3);
  });

  test('pages with first and cursor without skipping or repeating; totalCount counts the whole set', async () => {
    const seen: number[] = [];
    let cursor = '';
    for (let page = 0; page < 4; page++) {
      const body = (await h.list(kitId, `?first=4${cursor}`)).json().response;
      assert.equal(body.totalCount, 7);
      seen.push(...body.nodes.map((n: Media) => n.id));
      if (!body.pageInfo.hasNextPage) break;
      assert.equal(body.nodes.length, 4);
      cursor = `&cursor=${body.pageInfo.endCursor}`;
    }
    assert.deepEqual(
      seen,
      all.map((m) => m.id).sort((a, b) => b - a),
    );
    const imagesPage = (await h.list(kitId, '?first=1&mediaType=IMAGE')).json().response;
    assertError(await h.list(kitId, `?first=1&cursor=${imagesPage.pageInfo.endCursor}`), 400, 'INVALID_CURSOR');
    assertError(
      await h.list(kitId, '?first=101'),
      400,
      'VALIDATION_FAILED',
      'first (query): must be <= 100, received 101',
    );
    assertError(
      await h.list(kitId, '?mediaFormat=jpeg'),
      400,
      'VALIDATION_FAILED',
      /^mediaFormat \(query\): must be one of jpg, png, gif, svg, webp/,
    );
    assertError(
      await h.list(kitId, '?mediaType=PHOTO'),
      400,
      'VALIDATION_FAILED',
      /^mediaType \(query\): must be one of IMAGE, VIDEO, AUDIO/,
    );
  });

  test('a parentId of another kit or team is 404; every role of the team lists; another team gets 404', async () => {
    const other = await h.kit('Other kit');
    const foreignFolder = (await h.createFolder({ brandkitId: other, name: 'F' })).json().response.mediaFolder.id;
    assertError(
      await h.list(kitId, `?parentId=${foreignFolder}`),
      404,
      'NOT_FOUND',
      `parentId: media folder ${foreignFolder} belongs to brand kit ${other}, not to brand kit ${kitId}`,
    );
    const viewer = await t.userWith('Viewer');
    assert.equal((await ids('', viewer.headers)).length, 7);
    const globex = await t.newTeam('Globex');
    assertError(
      await h.list(kitId, '', globex.headers),
      404,
      'NOT_FOUND',
      `id: brand kit ${kitId} does not exist in this team`,
    );
  });

  test('assetCount of the brand kit list counts the VALID assets only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/brandkits', headers: t.owner.headers });
    const kits = res.json().response.nodes as { id: number; assetCount: number }[];
    const counts = Object.fromEntries(kits.map((k) => [k.id, k.assetCount]));
    assert.equal(counts[kitId], 6);
    assert.ok(kits.filter((k) => k.id !== kitId).every((k) => k.assetCount === 0));
  });
});

describe('media folders', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  const h = helpers(
    () => t.app,
    () => t.owner,
    () => t.runtime.jobs,
  );

  test('POST creates { mediaFolder } at the root or under a parent; GET lists every folder of the kit', async () => {
    const kitId = await h.kit('Folders');
    const res = await h.createFolder({ brandkitId: kitId, name: '  Logos ' });
    assert.equal(res.statusCode, 200);
    const root = res.json().response.mediaFolder;
    assert.deepEqual(root, {
      id: root.id,
      brandkitId: kitId,
      name: 'Logos',
      parentId: null,
      createdAt: root.createdAt,
    });
    assert.match(root.createdAt, ISO_MS);
    const child = (await h.createFolder({ brandkitId: kitId, name: 'dark', parentId: root.id })).json().response
      .mediaFolder;
    assert.equal(child.parentId, root.id);
    const banners = (await h.createFolder({ brandkitId: kitId, name: 'Banners' })).json().response.mediaFolder;

    const listed = await h.listFolders(kitId);
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(listed.json(), { response: [banners, child, root] });
    const row = await t.runtime.db.kysely
      .selectFrom('media_folders')
      .selectAll()
      .where('id', '=', child.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      id: child.id,
      brand_kit_id: kitId,
      parent_id: root.id,
      name: 'dark',
      created_by: t.owner.userId,
      created_at: child.createdAt,
    });
  });

  test('a parent of another kit is 422, of no kit of the team 404; bad bodies are 400', async () => {
    const kitId = await h.kit('A');
    const otherKit = await h.kit('B');
    const foreign = (await h.createFolder({ brandkitId: otherKit, name: 'x' })).json().response.mediaFolder;
    assertError(
      await h.createFolder({ brandkitId: kitId, name: 'y', parentId: foreign.id }),
      422,
      'UNPROCESSABLE',
      `parentId: media folder ${foreign.id} belongs to brand kit ${otherKit}, not to brand kit ${kitId}`,
    );
    assertError(
      await h.createFolder({ brandkitId: kitId, name: 'y', parentId: 999999 }),
      404,
      'NOT_FOUND',
      'parentId: media folder 999999 does not exist in this team',
    );
    assertError(
      await h.createFolder({ brandkitId: kitId, name: '   ' }),
      400,
      'VALIDATION_FAILED',
      'name: must not be empty or only spaces, received "   "',
    );
    assertError(await h.createFolder({ brandkitId: kitId }), 400, 'VALIDATION_FAILED', 'name: is required');
    assert.deepEqual((await h.listFolders(kitId)).json().response, []);
  });

  test('a Viewer lists but gets 403 creating; another team gets 404 for every role', async () => {
    const kitId = await h.kit('Guarded');
    const viewer = await t.userWith('Viewer');
    assertError(
      await h.createFolder({ brandkitId: kitId, name: 'v' }, viewer.headers),
      403,
      'FORBIDDEN',
      `brand kit ${kitId}: this change needs the Editor role or a stronger one; the caller is Viewer`,
    );
    assert.equal((await h.listFolders(kitId, viewer.headers)).statusCode, 200);
    const editor = await t.userWith('Editor');
    assert.equal((await h.createFolder({ brandkitId: kitId, name: 'e' }, editor.headers)).statusCode, 200);
    const globex = await t.newTeam('Globex');
    const globexViewer = await t.userWith('Viewer', globex);
    for (const headers of [globex.headers, globexViewer.headers]) {
      assertError(await h.createFolder({ brandkitId: kitId, name: 'g' }, headers), 404, 'NOT_FOUND');
      assertError(await h.listFolders(kitId, headers), 404, 'NOT_FOUND');
    }
  });
});
