import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import sharp from 'sharp';
import { parseAllowedPrivateHosts } from '../../../src/config.js';
import { AppError } from '../../../src/errors.js';
import { createUrlGuard, forbiddenAddressReason, type HostLookup } from '../../../src/net/url-guard.js';
import { createAssetFetcher, MB } from '../../../src/render/media/assets.js';
import { ffprobePath } from '../../../src/render/media/media-probe.js';
import { isFileHostingLink, rewriteShareLink } from '../../../src/render/media/share-links.js';
import { sniff } from '../../../src/render/media/sniff.js';
import {
  gif,
  type Handler,
  type MediaServer,
  PNG_SIGNATURE,
  png,
  pngHeaderOnly,
  startMediaServer,
  streamBytes,
  svg,
  wav,
} from '../media-fixtures.js';

/** Asserts that the promise fails with SOURCE_REJECTED and a message matching `pattern`; returns the message. */
async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${error}`);
    assert.equal(error.code, 'SOURCE_REJECTED');
    assert.equal(error.status, 422);
    assert.match(error.message, pattern);
    return error.message;
  }
  assert.fail(`expected a rejection matching ${pattern}`);
}

/** DNS for tests: names map to addresses; anything else is not found. */
function fakeDns(table: Record<string, string[]>, calls: string[] = []): HostLookup {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** 127.0.0.1 (where the test server listens) counts as public; every other address follows the real rule. */
const testServerIsPublic = (address: string) => (address === '127.0.0.1' ? null : forbiddenAddressReason(address));

const hasFfprobe = (() => {
  try {
    return Boolean(ffprobePath());
  } catch {
    return false;
  }
})();

describe('address rule', () => {
  const cases: [string, string | null][] = [
    ['10.0.0.5', 'a private address'],
    ['172.16.4.1', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT (CGNAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped loopback address'],
    ['::ffff:10.1.2.3', 'an IPv4-mapped private address'],
    ['::7f00:1', 'an IPv4-compatible IPv6 address'],
    ['64:ff9b::a00:1', 'a reserved address (rfc6052)'],
    ['2002:7f00:1::', 'a reserved address (6to4)'],
    ['8.8.8.8', null],
    ['93.184.216.34', null],
    ['2606:4700:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ];
  for (const [address, reason] of cases) {
    test(`${address} → ${reason ?? 'public'}`, () => {
      assert.equal(forbiddenAddressReason(address), reason);
    });
  }

  test('a host resolving to a private address is refused with the URL, the address and the range', async () => {
    const guard = createUrlGuard({ allowPrivateUrls: false, lookup: fakeDns({ x: ['10.0.0.5'] }) });
    await assert.rejects(guard.check('https://x/a.png'), {
      code: 'SOURCE_REJECTED',
      message:
        'https://x/a.png: resolves to 10.0.0.5, a private address (an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS)',
    });
  });

  test('one private address among public ones is enough to refuse', async () => {
    const guard = createUrlGuard({ allowPrivateUrls: false, lookup: fakeDns({ x: ['8.8.8.8', 'fd00::7'] }) });
    await rejectsWith(
      guard.check('https://x/a.png'),
      /resolves to fd00::7, a unique-local address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
  });

  test('IP literals are checked without DNS, in every spelling the URL parser accepts', async () => {
    const calls: string[] = [];
    const guard = createUrlGuard({ allowPrivateUrls: false, lookup: fakeDns({}, calls) });
    await rejectsWith(
      guard.check('http://169.254.169.254/latest/meta-data/'),
      /points at 169\.254\.169\.254, a link-local/,
    );
    await rejectsWith(guard.check('http://2130706433/'), /points at 127\.0\.0\.1, a loopback address/);
    await rejectsWith(guard.check('http://0x7f.1/'), /points at 127\.0\.0\.1/);
    await rejectsWith(guard.check('http://[::ffff:127.0.0.1]/'), /an IPv4-mapped loopback address/);
    assert.deepEqual(calls, []);
  });

  test('IPv6 literals are parsed like any host, then the address rules apply; a public one is not refused', async () => {
    const calls: string[] = [];
    const guard = createUrlGuard({ allowPrivateUrls: false, lookup: fakeDns({}, calls) });
    await rejectsWith(guard.check('http://[::1]:8080/a.png'), /points at ::1, a loopback address/);
    await rejectsWith(guard.check('http://[fd12:3456::1]/a.png'), /points at fd12:3456::1, a unique-local address/);
    await rejectsWith(guard.check('http://[FE80::1]/a.png'), /points at fe80::1, a link-local address/);
    const checked = await guard.check('https://[2606:4700:4700::1111]:8443/a.png');
    assert.deepEqual(checked.addresses, [{ address: '2606:4700:4700::1111', family: 6 }]);
    assert.equal(checked.url.port, '8443');
    assert.deepEqual(calls, []);
  });

  test('PLACARD_ALLOWED_PRIVATE_HOSTS lets listed hosts and ranges be private, and nothing else', async () => {
    const lookup = fakeDns({
      'assets.corp': ['10.1.2.3'],
      'cdn.assets.corp': ['10.9.9.9'],
      'other.corp': ['10.1.2.4'],
      'range.corp': ['192.168.7.20'],
      'v6.corp': ['fd00:abcd::5'],
    });
    const guard = createUrlGuard({
      allowPrivateUrls: false,
      lookup,
      allowedPrivateHosts: ['Assets.Corp', '*.assets.corp', '192.168.7.0/24', '[fd00:abcd::]/32', '::ffff:172.16.0.9'],
    });
    assert.equal((await guard.check('http://assets.corp/a.png')).addresses[0].address, '10.1.2.3');
    assert.equal((await guard.check('http://cdn.assets.corp/a.png')).addresses[0].address, '10.9.9.9');
    assert.equal((await guard.check('http://range.corp/a.png')).addresses[0].address, '192.168.7.20');
    assert.equal((await guard.check('http://v6.corp/a.png')).addresses[0].address, 'fd00:abcd::5');
    assert.equal((await guard.check('http://[::ffff:192.168.7.1]/')).addresses[0].address, '::ffff:c0a8:701');
    await guard.check('http://172.16.0.9/');
    await rejectsWith(
      guard.check('http://other.corp/a.png'),
      /resolves to 10\.1\.2\.4, a private address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
    await rejectsWith(guard.check('http://192.168.8.1/'), /PLACARD_ALLOWED_PRIVATE_HOSTS/);
    // The allowance is per hop: a redirect from a listed host to an unlisted private one is refused.
    await rejectsWith(
      guard.check('http://other.corp/x', { origin: 'http://assets.corp/a.png', redirected: true }),
      /^http:\/\/assets\.corp\/a\.png: redirected to http:\/\/other\.corp\/x, which resolves to 10\.1\.2\.4/,
    );
  });

  test('PLACARD_ALLOWED_PRIVATE_HOSTS entries are validated', () => {
    assert.deepEqual(parseAllowedPrivateHosts(' a.corp, *.b.corp ,10.0.0.0/8,[fd00::1],'), [
      'a.corp',
      '*.b.corp',
      '10.0.0.0/8',
      'fd00::1',
    ]);
    assert.throws(() => parseAllowedPrivateHosts('10.0.0.0/99'), /'10\.0\.0\.0\/99' is not a valid CIDR range/);
    assert.throws(
      () => parseAllowedPrivateHosts('http://a.corp'),
      /PLACARD_ALLOWED_PRIVATE_HOSTS: 'http:\/\/a\.corp' is not/,
    );
  });

  test('allowPrivateUrls lets private addresses through', async () => {
    const guard = createUrlGuard({ allowPrivateUrls: true, lookup: fakeDns({ x: ['10.0.0.5'] }) });
    const checked = await guard.check('https://x/a.png');
    assert.deepEqual(checked.addresses, [{ address: '10.0.0.5', family: 4 }]);
  });

  test('only http and https; user names and passwords never appear in messages', async () => {
    const guard = createUrlGuard({ allowPrivateUrls: false, lookup: fakeDns({}) });
    await rejectsWith(
      guard.check('ftp://files.test/a.png'),
      /^ftp:\/\/files\.test\/a\.png: uses ftp; only http and https/,
    );
    await rejectsWith(guard.check('file:///etc/passwd'), /uses file; only http and https/);
    const message = await rejectsWith(guard.check('https://bob:hunter2@nowhere.test/a.png'), /was not found/);
    assert.doesNotMatch(message, /hunter2|bob/);
  });
});

describe('share links', () => {
  const table: [string, string][] = [
    [
      'https://drive.google.com/file/d/1AbC-d_E2/view?usp=sharing',
      'https://drive.google.com/uc?export=download&id=1AbC-d_E2',
    ],
    ['https://drive.google.com/open?id=1AbC-d_E2', 'https://drive.google.com/uc?export=download&id=1AbC-d_E2'],
    ['https://drive.google.com/uc?id=XyZ', 'https://drive.google.com/uc?export=download&id=XyZ'],
    ['https://www.dropbox.com/s/abc123/banner.png?dl=0', 'https://www.dropbox.com/s/abc123/banner.png?dl=1'],
    [
      'https://www.dropbox.com/scl/fi/k9x/photo.jpg?rlkey=r2d2&dl=0',
      'https://www.dropbox.com/scl/fi/k9x/photo.jpg?rlkey=r2d2&dl=1',
    ],
    ['https://www.dropbox.com/s/abc123/clip.mp4', 'https://www.dropbox.com/s/abc123/clip.mp4?dl=1'],
    ['https://dl.dropboxusercontent.com/s/abc123/banner.png', 'https://dl.dropboxusercontent.com/s/abc123/banner.png'],
    [
      'https://1drv.ms/i/s!AkP2x',
      `https://api.onedrive.com/v1.0/shares/u!${Buffer.from('https://1drv.ms/i/s!AkP2x').toString('base64url')}/root/content`,
    ],
    [
      'https://onedrive.live.com/redir?resid=ABC%21123&authkey=%21XYZ',
      'https://onedrive.live.com/download?resid=ABC%21123&authkey=%21XYZ',
    ],
    [
      'https://onedrive.live.com/embed?cid=C1&resid=C1%21105&authkey=K',
      'https://onedrive.live.com/download?cid=C1&resid=C1%21105&authkey=K',
    ],
    ['https://cdn.example.com/p.jpg', 'https://cdn.example.com/p.jpg'],
    ['https://example.com/file/d/abc/view', 'https://example.com/file/d/abc/view'],
  ];
  for (const [from, to] of table) {
    test(`${from} → ${to}`, () => {
      assert.equal(rewriteShareLink(from), to);
    });
  }

  test('isFileHostingLink recognises Drive, Dropbox and OneDrive in any form, and nothing else', () => {
    for (const [from, to] of table.slice(0, 10)) {
      assert.equal(isFileHostingLink(from), true, from);
      assert.equal(isFileHostingLink(to), true, to);
    }
    assert.equal(isFileHostingLink('https://contoso.sharepoint.com/:i:/g/x'), true);
    assert.equal(isFileHostingLink('https://cdn.example.com/p.jpg'), false);
    assert.equal(isFileHostingLink('https://drive.google.com.evil.test/a.png'), false);
    assert.equal(isFileHostingLink('not a url'), false);
  });

  test('brand kit uploads refuse file-hosting links before any request', async () => {
    const fetcher = createAssetFetcher({ allowPrivateUrls: false, lookup: fakeDns({}) });
    await rejectsWith(
      fetcher.fetch('https://www.dropbox.com/s/abc/logo.png?dl=0', { shareLinks: 'refuse' }),
      /^https:\/\/www\.dropbox\.com\/s\/abc\/logo\.png\?dl=0: is a file-hosting link .*direct public link/,
    );
  });
});

describe('sniffing', () => {
  test('recognises each format by its first bytes', () => {
    const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from(`ftyp${brand}`)]);
    const riff = (form: string) => Buffer.from(`RIFF\0\0\0\0${form}`);
    const cases: [Buffer, string | null][] = [
      [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'jpg'],
      [png(1, 1), 'png'],
      [gif(), 'gif'],
      [riff('WEBP'), 'webp'],
      [svg(), 'svg'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'svg'],
      [Buffer.from('ID3\x04\0\0'), 'mp3'],
      [Buffer.from([0xff, 0xfb, 0x90, 0x64]), 'mp3'],
      [riff('WAVE'), 'wav'],
      [Buffer.from('OggS\0\x02'), 'ogg'],
      [ftyp('isom'), 'mp4'],
      [ftyp('qt  '), 'mov'],
      [Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]), Buffer.from('webm')]), 'webm'],
      [Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88]), Buffer.from('matroska')]), 'mkv'],
      [riff('AVI '), 'avi'],
      [ftyp('heic'), null],
      [Buffer.from('<!doctype html><title>x</title>'), null],
      [Buffer.from('<?xml version="1.0"?><rss/>'), null],
      [Buffer.from('%PDF-1.7'), null],
    ];
    for (const [bytes, format] of cases) {
      assert.equal(sniff(bytes)?.format ?? null, format, bytes.subarray(0, 12).toString('latin1'));
    }
  });
});

describe('fetching media', () => {
  let server: MediaServer;
  before(async () => {
    server = await startMediaServer();
    const serve =
      (body: Buffer, type = 'application/octet-stream'): Handler =>
      (_req, res) => {
        res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
      };
    server.route('/ok.png', serve(png(40, 30)));
    server.route('/page.png', serve(Buffer.from('<!DOCTYPE html><html><body>Not found</body></html>'), 'image/png'));
    server.route('/huge-header.png', serve(pngHeaderOnly(8000, 8000)));
    server.route('/big.gif', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/gif' }).end(gif(MB + 10)); // chunked: the streaming cap
    });
    server.route('/declared-big.gif', serve(gif(MB + 10)));
    server.route('/small.gif', serve(gif()));
    server.route('/logo.svg', serve(svg()));
    server.route('/script.svg', serve(svg('<script>alert(1)</script>')));
    server.route('/onload.svg', serve(svg('<rect/>', 'width="1" height="1" onload="alert(1)"')));
    server.route('/short.wav', serve(wav(1)));
    server.route('/long.wav', serve(wav(6 * 60)));
    server.route(
      '/fake.mp4',
      serve(Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(64)])),
    );
    server.route('/missing.png', (_req, res) => {
      res.writeHead(404).end('no');
    });
  });
  after(() => server.close());

  const local = (options: Partial<Parameters<typeof createAssetFetcher>[0]> = {}) =>
    createAssetFetcher({ allowPrivateUrls: true, ...options });

  test('a valid PNG comes back with its type, dimensions and SHA-256', async () => {
    const media = await local().fetch(`${server.origin}/ok.png`);
    const bytes = png(40, 30);
    assert.deepEqual(
      { ...media, bytes: media.bytes.length },
      {
        url: `${server.origin}/ok.png`,
        finalUrl: `${server.origin}/ok.png`,
        bytes: bytes.length,
        kind: 'IMAGE',
        format: 'png',
        mimeType: 'image/png',
        width: 40,
        height: 30,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    );
  });

  test('127.0.0.1 is refused when private URLs are not allowed, before any request', async () => {
    const before = server.hits.get('/ok.png') ?? 0;
    await rejectsWith(
      createAssetFetcher({ allowPrivateUrls: false }).fetch(`${server.origin}/ok.png`),
      new RegExp(
        `^http://127\\.0\\.0\\.1:${server.port}/ok\\.png: points at 127\\.0\\.0\\.1, a loopback address \\(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\\)$`,
      ),
    );
    await rejectsWith(
      createAssetFetcher({ allowPrivateUrls: false }).fetch(`http://localhost:${server.port}/ok.png`),
      /^http:\/\/localhost:\d+\/ok\.png: resolves to (127\.0\.0\.1|::1), a loopback address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
    assert.equal(server.hits.get('/ok.png') ?? 0, before);
  });

  test('a public-looking host is fetched at the address that was checked, with its own Host header', async () => {
    const calls: string[] = [];
    const fetcher = createAssetFetcher({
      allowPrivateUrls: false,
      lookup: fakeDns({ 'cdn.test': ['127.0.0.1'] }, calls),
      addressRule: testServerIsPublic,
    });
    // cdn.test exists only in the fake DNS: the connection can only have used the checked address.
    const media = await fetcher.fetch(`http://cdn.test:${server.port}/ok.png`);
    assert.equal(media.width, 40);
    assert.deepEqual(calls, ['cdn.test']);
    assert.equal(server.hosts.get('/ok.png'), `cdn.test:${server.port}`);
  });

  test('every redirect hop is checked again: a redirect from a public host to a private one is refused', async () => {
    const fetcher = createAssetFetcher({
      allowPrivateUrls: false,
      lookup: fakeDns({ 'cdn.test': ['127.0.0.1'], 'internal.test': ['::1'] }),
      addressRule: testServerIsPublic,
    });
    const targets: Record<string, string> = {
      '/to-loopback': `http://127.0.0.2:${server.port}/ok.png`,
      '/to-mapped': `http://[::ffff:127.0.0.1]:${server.port}/ok.png`,
      '/to-internal-name': `http://internal.test:${server.port}/ok.png`,
      '/to-file': 'file:///etc/passwd',
    };
    for (const [path, location] of Object.entries(targets)) {
      server.route(path, (_req, res) => {
        res.writeHead(302, { location }).end();
      });
    }
    const origin = `http://cdn.test:${server.port}`;
    await rejectsWith(
      fetcher.fetch(`${origin}/to-loopback`),
      new RegExp(
        `^${origin}/to-loopback: redirected to http://127\\.0\\.0\\.2:\\d+/ok\\.png, which points at 127\\.0\\.0\\.2, a loopback address \\(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\\)$`,
      ),
    );
    await rejectsWith(
      fetcher.fetch(`${origin}/to-mapped`),
      /which points at ::ffff:7f00:1, an IPv4-mapped loopback address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
    await rejectsWith(
      fetcher.fetch(`${origin}/to-internal-name`),
      /redirected to http:\/\/internal\.test:\d+\/ok\.png, which resolves to ::1, a loopback address \(an intranet host can be allowed with PLACARD_ALLOWED_PRIVATE_HOSTS\)$/,
    );
    await rejectsWith(
      fetcher.fetch(`${origin}/to-file`),
      /redirected to file:\/\/\/etc\/passwd, which uses file; only http and https/,
    );
  });

  test('up to 5 redirects are followed; the 6th is refused', async () => {
    for (let i = 0; i < 10; i++) {
      server.route(`/hop/${i}`, (_req, res) => {
        res.writeHead(i % 2 ? 301 : 307, { location: i === 4 ? '/ok.png' : `/hop/${i + 1}` }).end();
      });
    }
    const media = await local().fetch(`${server.origin}/hop/0`);
    assert.equal(media.finalUrl, `${server.origin}/ok.png`);
    assert.equal(media.url, `${server.origin}/hop/0`);

    server.route('/loop', (_req, res) => {
      res.writeHead(302, { location: '/loop' }).end();
    });
    await rejectsWith(
      local().fetch(`${server.origin}/loop`),
      /^http:\/\/127\.0\.0\.1:\d+\/loop: redirects more than 5 times/,
    );
    assert.equal(server.hits.get('/loop'), 6);
  });

  test('an HTML page named .png is not an image', async () => {
    await rejectsWith(
      local().fetch(`${server.origin}/page.png`),
      /page\.png: is not an image, audio or video file this service accepts: it looks like an HTML page$/,
    );
  });

  test('an HTTP error is named', async () => {
    await rejectsWith(
      local().fetch(`${server.origin}/missing.png`),
      /missing\.png: answered HTTP 404; the file must be publicly downloadable$/,
    );
  });

  test('a 30 MB image is stopped at the 20 MB cap without being read whole', async () => {
    let written = 0;
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    server.route('/30mb.png', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' }); // chunked: no Content-Length to reject early on
      written = await streamBytes(res, pngHeaderOnly(4000, 2000), 30 * MB);
      finished();
    });
    await rejectsWith(
      local().fetch(`${server.origin}/30mb.png`),
      /30mb\.png: a PNG image is larger than the 20 MB allowed for images$/,
    );
    await done;
    assert.ok(written < 30 * MB, `the server wrote ${written} bytes`);
  });

  // The server never sends the rest of these bodies: the refusal comes from the headers and first bytes, and the
  // connection is closed by the fetcher (the test would hang, and time out, if it were left open).
  test('a declared Content-Length over the cap is refused as soon as the type is known', {
    timeout: 10_000,
  }, async () => {
    const closed: Promise<unknown>[] = [];
    server.route('/declared.png', (_req, res) => {
      closed.push(once(res, 'close'));
      res.writeHead(200, { 'content-length': 30 * MB });
      res.write(Buffer.concat([pngHeaderOnly(10, 10), Buffer.alloc(8192)]));
    });
    await rejectsWith(
      local().fetch(`${server.origin}/declared.png`),
      /is a PNG image of 30 MB, more than the 20 MB allowed for images$/,
    );
    server.route('/declared-huge', (_req, res) => {
      closed.push(once(res, 'close'));
      res.writeHead(200, { 'content-length': 500 * MB });
      res.write(PNG_SIGNATURE);
    });
    await rejectsWith(
      local().fetch(`${server.origin}/declared-huge`),
      /declares 500 MB, more than the 100 MB any media may have$/,
    );
    await Promise.all(closed);
  });

  test('a GIF over 1 MB is refused; a small one is accepted', async () => {
    await rejectsWith(
      local().fetch(`${server.origin}/big.gif`),
      /big\.gif: a GIF image is larger than the 1 MB allowed for GIF images$/,
    );
    await rejectsWith(
      local().fetch(`${server.origin}/declared-big.gif`),
      /declared-big\.gif: is a GIF image of 1048586 bytes, more than the 1 MB \(1048576 bytes\) allowed for GIF images$/,
    );
    const small = await local().fetch(`${server.origin}/small.gif`);
    assert.deepEqual([small.format, small.width, small.height], ['gif', 1, 1]);
  });

  test('a body that ends before its Content-Length is refused, not used half-fetched', async () => {
    const whole = png(64, 64);
    server.route('/cut-short.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': whole.length });
      res.write(whole.subarray(0, Math.floor(whole.length / 2)), () => res.socket?.destroy());
    });
    await rejectsWith(
      local({ cacheBytes: 0 }).fetch(`${server.origin}/cut-short.png`),
      /cut-short\.png: (ended after \d+ bytes of the .* its Content-Length declares|cannot be fetched: the connection closed before the whole file arrived)$/,
    );
  });

  test('a truncated image of every raster format is refused; the whole file is accepted', async () => {
    const picture = sharp({ create: { width: 120, height: 80, channels: 3, background: '#3366cc' } }).composite([
      { input: Buffer.from('<svg width="120" height="80"><circle cx="60" cy="40" r="30" fill="#f80"/></svg>') },
    ]);
    const wholes: Record<string, Buffer> = {
      png: png(200, 150),
      jpg: await picture.clone().jpeg().toBuffer(),
      webp: await picture.clone().webp().toBuffer(),
      gif: await picture.clone().gif().toBuffer(),
    };
    for (const [format, whole] of Object.entries(wholes)) {
      // The server is honest about the length of what it sends: only decoding can tell the file is cut.
      const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
      server.route(`/whole.${format}`, (_req, res) => {
        res.writeHead(200, { 'content-length': whole.length }).end(whole);
      });
      server.route(`/truncated.${format}`, (_req, res) => {
        res.writeHead(200, { 'content-length': cut.length }).end(cut);
      });
      const ok = await local().fetch(`${server.origin}/whole.${format}`);
      assert.equal(ok.format, format);
      await rejectsWith(
        local().fetch(`${server.origin}/truncated.${format}`),
        new RegExp(`truncated\\.${format}: (is an? .* that cannot be decoded whole|is not a valid)`),
      );
    }
  });

  test('an image over 50 megapixels is refused from its header', async () => {
    await rejectsWith(
      local().fetch(`${server.origin}/huge-header.png`),
      /is 8000x8000 pixels \(64 megapixels\), more than the 50 megapixels allowed$/,
    );
  });

  test('SVG: dimensions read; scripts and event handlers refused', async () => {
    const logo = await local().fetch(`${server.origin}/logo.svg`);
    assert.deepEqual(
      [logo.kind, logo.format, logo.mimeType, logo.width, logo.height],
      ['IMAGE', 'svg', 'image/svg+xml', 120, 60],
    );
    await rejectsWith(local().fetch(`${server.origin}/script.svg`), /script\.svg: the SVG contains a <script> element/);
    await rejectsWith(
      local().fetch(`${server.origin}/onload.svg`),
      /onload\.svg: the SVG contains an event handler attribute \(onload=\)/,
    );
  });

  test('the kind the caller needs is enforced', async () => {
    await rejectsWith(
      local({ probe: null }).fetch(`${server.origin}/short.wav`, { expect: ['IMAGE', 'VIDEO'] }),
      /short\.wav: is WAV audio, but an image or a video is needed here$/,
    );
  });

  test('audio longer than 5 minutes is refused; a short clip has its duration', {
    skip: !hasFfprobe && 'no ffprobe here',
  }, async () => {
    const clip = await local().fetch(`${server.origin}/short.wav`);
    assert.deepEqual([clip.kind, clip.format], ['AUDIO', 'wav']);
    assert.ok(Math.abs((clip.durationSeconds ?? 0) - 1) < 0.01, `duration ${clip.durationSeconds}`);
    await rejectsWith(
      local().fetch(`${server.origin}/long.wav`),
      /long\.wav: is WAV audio of 6 min 0 s, longer than the 5 min 0 s allowed$/,
    );
  });

  test('a file that only starts like an MP4 is refused by the probe', {
    skip: !hasFfprobe && 'no ffprobe here',
  }, async () => {
    await rejectsWith(
      local().fetch(`${server.origin}/fake.mp4`),
      // In the user's words, without ffprobe's demuxer names and heap addresses (issue 15).
      /fake\.mp4: cannot be read as an MP4 video: the file is incomplete: it ends before its index/,
    );
  });

  test('without a prober the duration is unknown rather than guessed', async () => {
    const clip = await local({ probe: null }).fetch(`${server.origin}/short.wav`);
    assert.equal(clip.durationSeconds, undefined);
  });

  test('a server that never answers runs into the time limit', async () => {
    server.route('/hang.png', () => {
      // Never answers; the socket is closed by server.close().
    });
    server.route('/stall.png', (_req, res) => {
      res.writeHead(200);
      res.write(png(2, 2).subarray(0, 20));
    });
    await rejectsWith(
      local({ timeoutMs: 100 }).fetch(`${server.origin}/hang.png`),
      /hang\.png: took longer than 0\.1 s to download \(the time limit\)$/,
    );
    await rejectsWith(
      local({ timeoutMs: 100 }).fetch(`${server.origin}/stall.png`),
      /stall\.png: took longer than 0\.1 s/,
    );
  });

  test('a refused connection is named', async () => {
    const gone = await startMediaServer();
    const port = gone.port;
    await gone.close();
    await rejectsWith(
      local().fetch(`http://127.0.0.1:${port}/a.png`),
      /a\.png: cannot be fetched: the connection was refused$/,
    );
  });

  test('two concurrent fetches of one URL make one request; the cache answers the next', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived: () => void = () => {};
    const firstArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    server.route('/shared.png', async (_req, res) => {
      arrived();
      await released;
      const body = png(8, 8);
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    const fetcher = local();
    const first = fetcher.fetch(`${server.origin}/shared.png`);
    const second = fetcher.fetch(`${server.origin}/shared.png`);
    await firstArrived;
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.sha256, b.sha256);
    assert.equal(server.hits.get('/shared.png'), 1);
    await fetcher.fetch(`${server.origin}/shared.png`);
    assert.equal(server.hits.get('/shared.png'), 1);
    assert.ok(fetcher.cachedBytes() >= a.bytes.length);

    const uncached = local({ cacheBytes: 0 });
    await uncached.fetch(`${server.origin}/shared.png`);
    await uncached.fetch(`${server.origin}/shared.png`);
    assert.equal(server.hits.get('/shared.png'), 3);
  });

  test('a failed fetch is not cached', async () => {
    let fail = true;
    server.route('/flaky.png', (_req, res) => {
      if (fail) res.writeHead(500).end();
      else res.writeHead(200).end(png(3, 3));
    });
    const fetcher = local();
    await rejectsWith(fetcher.fetch(`${server.origin}/flaky.png`), /answered HTTP 500/);
    fail = false;
    assert.equal((await fetcher.fetch(`${server.origin}/flaky.png`)).width, 3);
  });
});

describe('fetching over HTTPS', () => {
  const opensslMissing = spawnSync('openssl', ['version']).status !== 0;

  test('TLS is verified against the host name, which is also the SNI, while the socket goes to the checked address', {
    skip: opensslMissing && 'no openssl here to make a certificate',
  }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-tls-'));
    try {
      const made = spawnSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=cdn.test'],
          ...['-addext', 'subjectAltName=DNS:cdn.test', '-keyout', 'key.pem', '-out', 'cert.pem'],
        ],
        { cwd: dir },
      );
      assert.equal(made.status, 0, String(made.stderr));
      const context = {
        key: fs.readFileSync(path.join(dir, 'key.pem')),
        cert: fs.readFileSync(path.join(dir, 'cert.pem')),
      };
      const servernames: string[] = [];
      const server = https.createServer(
        {
          ...context,
          SNICallback: (name, done) => {
            servernames.push(name);
            done(null, tls.createSecureContext(context));
          },
        },
        (_req, res) => {
          res.end(png(2, 2));
        },
      );
      server.on('tlsClientError', () => {});
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      try {
        const fetcher = createAssetFetcher({
          allowPrivateUrls: false,
          lookup: fakeDns({ 'cdn.test': ['127.0.0.1'] }),
          addressRule: testServerIsPublic,
        });
        // The certificate is self-signed, so it is not trusted: verification is on.
        await rejectsWith(
          fetcher.fetch(`https://cdn.test:${port}/a.png`),
          /^https:\/\/cdn\.test:\d+\/a\.png: cannot be fetched: TLS failed \(self-signed certificate\)$/,
        );
        assert.deepEqual(servernames, ['cdn.test']);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
