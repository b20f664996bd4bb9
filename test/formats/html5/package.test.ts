// Every network's package, unzipped (yauzl) and checked rule by rule against adnetworks.md: entry point, document,
// ad.size, click code, manifest, limits, file names, extensions, external references, backup image placement.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DesignDocument, readDocument } from '../../../src/domain/design.schema.js';
import type { AppError } from '../../../src/errors.js';
import { AD_NETWORKS, adNetworkById } from '../../../src/formats/html5/networks.js';
import { packageHtml5 } from '../../../src/formats/html5/package.js';
import type { Html5Settings } from '../../../src/formats/html5/settings.js';
import { ffmpegBinary } from '../../../src/render/media/video-frame.js';
import { readZip } from '../../helpers/zip.js';
import { type RenderMedia, startRenderMedia } from '../../render/render-media.js';

const LANDING = 'https://example.com/landing?from=ad';
const KB = 1024;

let media: RenderMedia;
before(async () => {
  media = await startRenderMedia();
});
after(() => media.close());

/** A simple 300x250 banner: photo, logo SVG, one web font in two weights, a button; 5 s, played once. */
function banner(extra: Record<string, unknown>[] = [], loop: number | 'infinite' = 1): DesignDocument {
  return readDocument({
    name: 'Spring sale',
    loop,
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            duration: 5,
            elements: [
              {
                name: 'photo',
                type: 'image',
                x: 0,
                y: 0,
                width: 300,
                height: 140,
                src: `${media.origin}/photo.jpg`,
                fit: 'cover',
              },
              { name: 'logo', type: 'svg', x: 250, y: 10, width: 40, height: 20, src: `${media.origin}/logo.svg` },
              {
                name: 'headline',
                type: 'text',
                x: 16,
                y: 150,
                width: 268,
                height: 48,
                text: 'Spring sale — 30 % off everything',
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: 20,
                color: '#FFFFFF',
                animations: [{ effect: 'slide', from: 'left', start: 0, duration: 0.6 }],
              },
              {
                name: 'cta',
                type: 'button',
                x: 16,
                y: 206,
                width: 120,
                height: 32,
                label: 'Shop now',
                fill: '#F59E0B',
                color: '#111827',
                fontFamily: 'Inter',
                fontVariant: '400',
                fontSize: 14,
                cornerRadius: 6,
              },
              ...extra,
            ],
          },
        ],
      },
    ],
  });
}

async function packaged(networkId: number, settings: Html5Settings = {}, doc = banner()) {
  const pkg = await packageHtml5(
    doc,
    0,
    { networkId, useAsClickTag: true, clickTagUrl: LANDING, ...settings },
    { fetcher: media.fetcher },
  );
  const files = await readZip(pkg.zip);
  const html = files.get('index.html')?.toString('utf8') ?? '';
  const head = html.slice(0, html.indexOf('</head>'));
  return { pkg, files, html, head };
}

/** Absolute http(s) URLs the HTML loads (src, href, url()), not counting the click variable's default value. */
function loadedUrls(html: string): string[] {
  const withoutClick = html.replace(/<script id="clicktag"[^>]*>[\s\S]*?<\/script>/g, '');
  return [...withoutClick.matchAll(/(?:src|href)="(https?:[^"]+)"|url\((https?:[^)]+)\)/g)].map((m) => m[1] ?? m[2]);
}

function commonDocumentRules(files: Map<string, Buffer>, html: string) {
  assert.ok(files.has('index.html'), 'index.html at the root of the zip');
  assert.ok(![...files.keys()].some((n) => n.startsWith('__MACOSX') || n.endsWith('.DS_Store')));
  assert.match(html, /^<!DOCTYPE html>\s*<html[^>]*>\s*<head>[\s\S]*<\/head>\s*<body>[\s\S]*<\/body>\s*<\/html>\s*$/);
  assert.match(html, /<meta charset="utf-8">/);
  assert.match(html, /<meta name="ad\.size" content="width=300,height=250">/);
  for (const name of files.keys()) {
    assert.ok(!/\.(?:swf|flv|zip)$/.test(name), `${name} is never allowed`);
  }
  // Every relative reference resolves inside the zip.
  for (const m of html.matchAll(/(?:src|srcset)="([^"#:]+?)(?: 2x)?"|url\(([^):]+)\)/g)) {
    const ref = m[1] ?? m[2];
    assert.ok(files.has(ref), `${ref} is in the zip`);
  }
}

describe('the generic IAB profile (the default)', () => {
  test('index.html, ad.size, clickTag read from the query, everything local, backup beside the zip', async () => {
    const { pkg, files, html, head } = await packaged(1, { includeFallbackImage: true });
    commonDocumentRules(files, html);
    assert.match(
      head,
      /<script id="clicktag" type="text\/javascript">\nvar clickTag = "https:\/\/example\.com\/landing\?from=ad";/,
    );
    assert.match(head, /location\.search/);
    assert.match(html, /window\.open\(clickTag,'_blank'\)/);
    assert.deepEqual(loadedUrls(html), []);
    // includeFallbackImage puts the JPG in the zip as the seed says (issue 15), and this network also gets it beside.
    const inZip = files.get('backup.jpg');
    assert.ok(inZip && inZip[0] === 0xff && inZip[1] === 0xd8, 'includeFallbackImage puts the JPG in the zip');
    assert.match(html, /<noscript><img src="backup\.jpg" alt=""><\/noscript>/);
    assert.ok(pkg.backup && pkg.backup[0] === 0xff && pkg.backup[1] === 0xd8, 'a JPG backup is delivered beside it');
    const allowed = adNetworkById(1)!.packaging.allowedExtensions!;
    for (const name of files.keys()) assert.ok(allowed.includes(name.split('.').pop()!), name);
    assert.ok(files.size <= 10, 'at most 10 initial requests');
    assert.ok(pkg.zip.byteLength <= 150 * KB);
  });

  test('fonts are embedded as woff2 subset to the characters shown', async () => {
    const { files, html } = await packaged(1);
    const fonts = [...files.keys()].filter((n) => n.endsWith('.woff2'));
    assert.ok(fonts.length >= 2, 'Inter 700 and 400');
    for (const font of fonts) {
      const bytes = files.get(font)!;
      assert.equal(bytes.subarray(0, 4).toString('latin1'), 'wOF2');
      assert.ok(bytes.byteLength < 12 * KB, `${font} is subset (${bytes.byteLength} bytes)`);
    }
    assert.match(html, /@font-face\{font-family:f0;font-weight:700/);
  });

  test('images are re-encoded at the export quality, at 2x with retina', async () => {
    const low = await packaged(1, { quality: 30 });
    const high = await packaged(1, { quality: 95 });
    const jpg = (files: Map<string, Buffer>) => [...files].find(([n]) => n.endsWith('.jpg'))![1];
    assert.ok(jpg(low.files).byteLength < jpg(high.files).byteLength);
    const retina = await packaged(1, { retina: true });
    assert.match(retina.html, /<img src="image1\.jpg" srcset="image2x1\.jpg 2x"/);
    const only = await packaged(1, { retinaOnly: true });
    assert.ok(![...only.files.keys()].some((n) => /^image\d+\.(?:jpg|png)$/.test(n)), 'no 1x images');
    assert.match(only.html, /<img src="image2x1\.jpg"/);
  });

  test('minifyHtml leaves the click script exactly as written', async () => {
    const plain = await packaged(1);
    const mini = await packaged(1, { minifyHtml: true });
    const script = /<script id="clicktag"[\s\S]*?<\/script>/;
    assert.equal(mini.html.match(script)?.[0], plain.html.match(script)?.[0]);
    assert.ok(mini.html.length < plain.html.length);
  });

  test('code elements run in a sandboxed iframe; convertCustomFonts writes text as SVG files, never inline', async () => {
    const doc = banner([{ name: 'embed', type: 'code', x: 0, y: 0, width: 50, height: 50, html: '<b>hi</b>' }]);
    const { files, html } = await packaged(1, { convertCustomFonts: true }, doc);
    assert.match(html, /<iframe sandbox="allow-scripts"[^>]*srcdoc="&lt;b&gt;hi&lt;\/b&gt;"/);
    assert.ok(![...files.keys()].some((n) => n.endsWith('.woff2')));
    assert.ok(!/<svg/i.test(html));
    const svgs = [...files.keys()].filter((n) => /^text\d+\.svg$/.test(n));
    assert.ok(svgs.length >= 2);
    assert.match(files.get(svgs[0])!.toString(), /@font-face\{font-family:f\d+;[^}]*src:url\(data:font\/woff2;base64,/);
  });
});

describe('per-network packaging', () => {
  test('Google Ads: no click code needed, no font files, names and count within limits, under 150 KB', async () => {
    const { pkg, files, html } = await packaged(2);
    commonDocumentRules(files, html);
    assert.ok(files.size <= 40);
    for (const name of files.keys()) {
      assert.match(name, /^[A-Za-z0-9._-]+$/);
      assert.ok(['css', 'js', 'html', 'gif', 'png', 'jpg', 'jpeg', 'svg'].includes(name.split('.').pop()!), name);
    }
    assert.ok(!/<(?:iframe|video|audio)\b/.test(html));
    assert.ok(!/localStorage|sessionStorage/.test(html));
    assert.deepEqual(loadedUrls(html), []);
    assert.ok(pkg.zip.byteLength <= 150 * KB, `${pkg.zip.byteLength} bytes`);
    assert.deepEqual(pkg.warnings, [
      'clickTagUrl is not written into the package: Google Ads makes the whole ad clickable itself',
    ]);
  });

  test('Google Ads refuses iframes: a code element fails the package with AD_NETWORK_RULE', async () => {
    const doc = banner([{ name: 'embed', type: 'code', x: 0, y: 0, width: 50, height: 50, html: '<b>hi</b>' }]);
    await assert.rejects(packaged(2, {}, doc), (error: AppError) => {
      assert.equal(error.code, 'AD_NETWORK_RULE');
      assert.match(error.message, /forbidden-api: Google Ads refuses ads that use iframe/);
      return true;
    });
  });

  test('Google Ads: a heavy package is a warning naming the weight and the cap', async () => {
    const { pkg } = await packaged(2, { quality: 100, retina: true }, banner([], 'infinite'));
    assert.ok(pkg.warnings.some((w) => /animation-length: the animation runs forever, Google Ads allows 30 s/.test(w)));
    if (pkg.zip.byteLength > 150 * KB) {
      assert.ok(pkg.warnings.some((w) => /weight: zip is \d+ KB, Google Ads allows 150 KB/.test(w)));
    }
  });

  test('Campaign Manager 360: unminified global clickTag in <head>, backup outside, every file referenced', async () => {
    const { pkg, files, html, head } = await packaged(3, { minifyHtml: true, includeFallbackImage: true });
    assert.match(
      head,
      /<script id="clicktag" type="text\/javascript">\nvar clickTag = "https:\/\/example\.com\/landing\?from=ad";\n<\/script>/,
    );
    // includeFallbackImage: in the zip as the seed says (issue 15), and beside it as CM360 wants.
    assert.ok(files.has('backup.jpg'));
    assert.ok(pkg.backup);
    for (const name of files.keys()) {
      assert.ok(name === 'index.html' || html.includes(name), `${name} is referenced`);
      assert.ok(!name.includes('%'));
    }
    assert.ok(files.size <= 100);
  });

  test('Display & Video 360: the landing page opens in a new window whatever urlTarget says', async () => {
    const { pkg, html } = await packaged(4, { urlTarget: '_self' });
    assert.match(html, /window\.open\(clickTag,'_blank'\)/);
    assert.ok(pkg.warnings.some((w) => /urlTarget _self replaced by _blank/.test(w)));
  });

  test('Google Ad Manager: clickTag\\d* in <head>, no hard-coded URL, no inline SVG, ad.size', async () => {
    const { files, html, head } = await packaged(5);
    commonDocumentRules(files, html);
    const names = [...head.matchAll(/var (\w+) = /g)].map((m) => m[1]);
    assert.ok(names.length > 0 && names.every((n) => /^clickTag\d*$/.test(n)));
    assert.ok(!/window\.open\(\s*["']https?:/.test(html), 'the URL is never the argument of window.open');
    assert.ok(!/<svg/i.test(html));
    assert.ok(files.size <= 50);
  });

  test('Google Ad Manager: an element with its own link gets clickTag2, declared beside clickTag', async () => {
    const doc = banner();
    doc.sizes[0].slides[0].elements.find((e) => e.name === 'cta')!.link = 'https://example.com/cta';
    const { head, html } = await packaged(5, {}, doc);
    assert.match(
      head,
      /var clickTag = "https:\/\/example\.com\/landing\?from=ad";\nvar clickTag2 = "https:\/\/example\.com\/cta";/,
    );
    assert.match(html, /<a class="l" href="javascript:void\(window\.open\(clickTag2,'_blank'\)\)"/);
  });

  test('Adform: manifest.json as documented, DHTML loader in <head>, clickTAG listed', async () => {
    const { files, html, head } = await packaged(6);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    assert.deepEqual(manifest, {
      version: '1.0',
      title: 'Spring sale',
      description: '',
      width: '300',
      height: '250',
      events: { enabled: 1, list: {} },
      clicktags: { clickTAG: LANDING },
      source: 'index.html',
    });
    assert.match(
      head,
      /document\.write\('<script src="'\+\(window\.API_URL\|\|'https:\/\/s1\.adform\.net\/banners\/scripts\/rmb\/Adform\.DHTML\.js\?bv='\+Math\.random\(\)\)\+'"><\\\/script>'\)/,
    );
    assert.match(html, /dhtml\.getVar\('clickTAG',clickTAGvalue\)/);
    assert.match(html, /dhtml\.getVar\('landingPageTarget',landingPageTarget\)/);
  });

  test('Xandr: index.html at the root, the AppNexus library, APPNEXUS.getClickTag()', async () => {
    const { files, html } = await packaged(7);
    commonDocumentRules(files, html);
    assert.deepEqual(loadedUrls(html), ['https://acdn.adnxs.com/html5-lib/1.4.1/appnexus-html5-lib.min.js']);
    assert.match(html, /window\.open\(\(window\.APPNEXUS&&APPNEXUS\.getClickTag\(\)\)\|\|clickTag,'_blank'\)/);
  });

  test('Amazon (Sizmek): EBLoader and EB.clickthrough(), backup inside, 15 s and 3 loops advised', async () => {
    const { pkg, files, html } = await packaged(8, {}, banner([], 'infinite'));
    assert.match(html, /EBLoader\.js/);
    assert.match(html, /EB\.clickthrough\(\)/);
    assert.ok(files.has('backup.jpg'), 'the default image is in the zip');
    assert.equal(pkg.backup, null);
    assert.ok(pkg.warnings.some((w) => /animation-length: .* allows 15 s/.test(w)));
    assert.ok(pkg.warnings.some((w) => /loops: .* allows 3/.test(w)));
  });

  test('Flashtalking: manifest.js, the FT API, no landing URL in the creative', async () => {
    const { pkg, files, html } = await packaged(9);
    assert.equal(
      files.get('manifest.js')!.toString().trim(),
      'FT.manifest({"filename":"index.html","width":300,"height":250,"clickTagCount":1});',
    );
    assert.match(
      html,
      /<script src="https:\/\/cdn\.flashtalking\.com\/frameworks\/js\/api\/v2\/10\/html5API\.js"><\/script>/,
    );
    assert.match(html, /myFT\.applyClickTag\(document\.getElementById\('click-area'\), 1\)/);
    assert.ok(!html.includes(LANDING));
    assert.ok(pkg.warnings.some((w) => /clickTagUrl is not written/.test(w)));
  });

  test('The Trade Desk: clickTag from the query, required backup delivered beside the zip', async () => {
    const { pkg, files, html } = await packaged(10);
    assert.match(html, /location\.search/);
    assert.ok(pkg.backup, 'a backup even without includeFallbackImage');
    assert.ok(!files.has('backup.jpg'));
    assert.ok(files.size <= 10);
  });

  test('Yahoo: one root HTML, works offline, backup inside, unminified original beside the minified build', async () => {
    const { files, html } = await packaged(11, { minifyHtml: true });
    assert.deepEqual(
      [...files.keys()].filter((n) => n.endsWith('.html') && !n.includes('/')),
      ['index.html'],
    );
    assert.deepEqual(loadedUrls(html), []);
    assert.ok(files.has('backup.jpg'));
    assert.ok(files.get('original/index.html')!.byteLength > html.length);
  });

  test('Meta takes no HTML5 zips: VALIDATION_FAILED', async () => {
    await assert.rejects(packaged(12), (error: AppError) => error.code === 'VALIDATION_FAILED');
  });

  test('every HTML5 network of the catalogue packages the banner', async () => {
    for (const network of AD_NETWORKS.filter((n) => n.html5)) {
      const { files } = await packaged(network.id);
      assert.ok(files.has('index.html'), network.name);
    }
  });
});

describe('video elements', () => {
  test('play as muted inline autoplay <video> where the network takes video, else show their first frame', async () => {
    const ffmpeg = await ffmpegBinary();
    assert.ok(ffmpeg, 'ffmpeg ships with the service');
    const file = path.join(os.tmpdir(), `placard-h5-clip-${process.pid}.mp4`);
    execFileSync(ffmpeg, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x48:d=1:r=10'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', file],
    ]);
    const clip = fs.readFileSync(file);
    fs.rmSync(file);
    media.server.route('/clip.mp4', (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length }).end(clip);
    });
    const doc = banner([
      { name: 'clip', type: 'video', x: 0, y: 0, width: 64, height: 48, src: `${media.origin}/clip.mp4`, loop: true },
    ]);
    const ttd = await packaged(10, {}, doc);
    assert.match(ttd.html, /<video src="video1\.mp4" muted autoplay playsinline loop/);
    assert.deepEqual(ttd.files.get('video1.mp4'), clip);
    const google = await packaged(2, {}, doc);
    assert.ok(!/<video/.test(google.html), 'Google Ads takes no video tags');
    assert.ok(![...google.files.keys()].some((n) => n.endsWith('.mp4')));
  });
});

describe('settings are hostile input', () => {
  for (const [settings, pattern] of [
    [{ quality: 0 }, /quality must be an integer from 1 to 100/],
    [{ quality: 101 }, /quality/],
    [{ networkId: 999 }, /networkId 999 is not an ad network/],
    [{ useAsClickTag: true, clickTagUrl: 'javascript:alert(1)' }, /clickTagUrl must be an http\(s\) URL/],
  ] as const) {
    test(JSON.stringify(settings), async () => {
      await assert.rejects(
        packageHtml5(banner(), 0, settings as Html5Settings, { fetcher: media.fetcher }),
        (error: AppError) => error.code === 'VALIDATION_FAILED' && pattern.test(error.message),
      );
    });
  }

  test('a click URL cannot break out of its script', async () => {
    const { html } = await packaged(1, { clickTagUrl: 'https://x.test/"</script><script>alert(1)//' });
    assert.ok(!html.includes('</script><script>alert(1)'));
  });
});
