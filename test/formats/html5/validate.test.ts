// The package validator on crafted zips: each rule of adnetworks.md §4 is caught, with its severity.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adNetworkById } from '../../../src/formats/html5/networks.js';
import { type PackageFacts, validatePackage } from '../../../src/formats/html5/validate.js';

const HEAD = '<meta charset="utf-8">\n<meta name="ad.size" content="width=300,height=250">';
const CLICK = '<script id="clicktag" type="text/javascript">\nvar clickTag = "https://example.com/";\n</script>';
const QUERY = `<script id="clicktag" type="text/javascript">\nvar clickTag = "";\nif (location.search) {}\n</script>`;

function html(head: string, body: string) {
  return `<!DOCTYPE html>\n<html>\n<head>\n${head}\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

function facts(files: Record<string, string | Buffer>, overrides: Partial<PackageFacts> = {}): PackageFacts {
  const map = new Map(Object.entries(files).map(([name, body]) => [name, Buffer.from(body)]));
  return {
    files: map,
    zipBytes: [...map.values()].reduce((sum, b) => sum + b.byteLength, 0),
    zipName: 'Spring-300x250',
    width: 300,
    height: 250,
    playSeconds: 5,
    loops: 1,
    index: 'index.html',
    ...overrides,
  };
}

const rulesOf = (networkId: number, f: PackageFacts) =>
  validatePackage(adNetworkById(networkId)!, f).map((finding) => `${finding.severity}:${finding.rule}`);

describe('the package validator', () => {
  test('a clean IAB package has no findings', () => {
    assert.deepEqual(
      rulesOf(1, facts({ 'index.html': html(`${HEAD}\n${QUERY}`, '<img src="a.png">'), 'a.png': 'x' })),
      [],
    );
  });

  test('structure, entry point and document', () => {
    assert.ok(
      rulesOf(1, facts({ 'index.html': html(HEAD + QUERY, ''), 'inner.zip': 'PK' })).includes('block:nested-zip'),
    );
    assert.ok(rulesOf(11, facts({ 'main.html': html(CLICK, '') }, { index: 'main.html' })).includes('block:index'));
    assert.ok(rulesOf(1, facts({ 'index.html': '<html><body></body></html>' })).includes('block:document'));
    assert.ok(rulesOf(1, facts({ 'index.html': html(QUERY, '') })).includes('block:charset'));
    assert.ok(rulesOf(5, facts({ 'index.html': html('<meta charset="utf-8">', CLICK) })).includes('block:ad-size'));
    const wrong = html('<meta charset="utf-8">\n<meta name="ad.size" content="width=728,height=90">', '');
    assert.ok(rulesOf(10, facts({ 'index.html': wrong + QUERY })).includes('block:ad-size'));
  });

  test('weight is advice, naming the size and the cap', () => {
    const f = facts({ 'index.html': html(HEAD, ''), 'big.jpg': Buffer.alloc(170 * 1024) }, { zipBytes: 170 * 1024 });
    const findings = validatePackage(adNetworkById(2)!, f);
    const weight = findings.find((x) => x.rule === 'weight');
    assert.equal(weight?.severity, 'advice');
    assert.equal(weight?.message, 'zip is 170 KB, Google Ads allows 150 KB');
  });

  test('file count, extensions, names', () => {
    const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`f${i}.png`, 'x']));
    assert.ok(rulesOf(2, facts({ 'index.html': html(HEAD, ''), ...many })).includes('block:file-count'));
    assert.ok(rulesOf(2, facts({ 'index.html': html(HEAD, ''), 'font.woff2': 'x' })).includes('block:extension'));
    assert.ok(rulesOf(3, facts({ 'index.html': html(CLICK, ''), 'movie.swf': 'x' })).includes('block:extension'));
    assert.ok(rulesOf(2, facts({ 'index.html': html(HEAD, ''), 'my image.png': 'x' })).includes('block:file-name'));
    assert.ok(
      rulesOf(3, facts({ 'index.html': html(CLICK, '<img src="a%20b.png">'), 'a%20b.png': 'x' })).includes(
        'block:file-name',
      ),
    );
    assert.ok(
      rulesOf(2, facts({ 'index.html': html(HEAD, '') }, { zipName: 'x'.repeat(51) })).includes('advice:zip-name'),
    );
  });

  test('references: missing files, unreferenced files, external hosts, plain http', () => {
    assert.ok(
      rulesOf(1, facts({ 'index.html': html(HEAD + QUERY, '<img src="gone.png">') })).includes('block:missing-file'),
    );
    assert.ok(rulesOf(3, facts({ 'index.html': html(CLICK, ''), 'spare.png': 'x' })).includes('block:unreferenced'));
    const cdn = html(HEAD + QUERY, '<script src="https://cdn.example.com/lib.js"></script>');
    assert.ok(rulesOf(1, facts({ 'index.html': cdn })).includes('block:external'));
    const gam = html(HEAD + CLICK, '<script src="https://cdn.example.com/lib.js"></script>');
    assert.ok(rulesOf(5, facts({ 'index.html': gam })).includes('block:external'));
    const allowed = html(HEAD + CLICK, '<script src="https://s0.2mdn.net/ads/studio/Enabler.js"></script>');
    assert.ok(!rulesOf(5, facts({ 'index.html': allowed })).includes('block:external'));
    const plain = html(HEAD + CLICK, '<script src="http://s0.2mdn.net/x.js"></script>');
    assert.ok(rulesOf(5, facts({ 'index.html': plain })).includes('block:https'));
  });

  test('click code: present, unminified in <head>, names, never hard-coded', () => {
    assert.ok(rulesOf(3, facts({ 'index.html': html(HEAD, '') })).includes('block:click-code'));
    const inBody = html(HEAD, CLICK);
    assert.ok(rulesOf(4, facts({ 'index.html': inBody })).includes('block:click-code'));
    const badName = html(HEAD + CLICK.replace('</script>', 'var clickTagX = "";\n</script>'), '');
    assert.ok(rulesOf(5, facts({ 'index.html': badName })).includes('block:click-code'));
    const hard = html(HEAD + CLICK, `<a href="javascript:window.open('https://example.com/')">x</a>`);
    assert.ok(rulesOf(5, facts({ 'index.html': hard })).includes('block:click-code'));
  });

  test('manifests: Adform manifest.json and Flashtalking manifest.js', () => {
    const adform = html(
      HEAD,
      `<script>document.write('Adform.DHTML.js')</script><a href="javascript:dhtml.getVar('clickTAG','x')"></a>`,
    );
    assert.ok(rulesOf(6, facts({ 'index.html': adform })).includes('block:manifest'));
    const manifest = JSON.stringify({
      version: '1.0',
      title: 't',
      width: '300',
      height: '250',
      clicktags: {},
      source: 'index.html',
    });
    assert.ok(
      rulesOf(6, facts({ 'index.html': adform, 'manifest.json': manifest })).includes('block:manifest'),
      'clickTAG unlisted',
    );
    const ok = manifest.replace('"clicktags":{}', '"clicktags":{"clickTAG":"https://x.test/"}');
    assert.ok(!rulesOf(6, facts({ 'index.html': adform, 'manifest.json': ok })).includes('block:manifest'));
    const ft = html(
      HEAD,
      '<script src="https://cdn.flashtalking.com/frameworks/js/api/v2/10/html5API.js"></script><script>myFT.applyClickTag(a, 1)</script>',
    );
    assert.ok(rulesOf(9, facts({ 'index.html': ft })).includes('block:manifest'));
    const tooMany = 'FT.manifest({"filename":"index.html","width":300,"height":250,"clickTagCount":21});';
    assert.ok(rulesOf(9, facts({ 'index.html': ft, 'manifest.js': tooMany })).includes('block:manifest'));
    const good = 'FT.manifest({"filename":"index.html","width":300,"height":250,"clickTagCount":1});';
    assert.deepEqual(rulesOf(9, facts({ 'index.html': ft, 'manifest.js': good })), []);
  });

  test('forbidden APIs, inline SVG, fonts and animation length', () => {
    const storage = html(HEAD + CLICK, '<script>localStorage.setItem("a", 1)</script>');
    assert.ok(rulesOf(3, facts({ 'index.html': storage })).includes('block:forbidden-api'));
    assert.ok(
      rulesOf(2, facts({ 'index.html': html(HEAD, '<iframe srcdoc="x"></iframe>') })).includes('block:forbidden-api'),
    );
    assert.ok(
      rulesOf(2, facts({ 'index.html': html(HEAD, '<video src="v.mp4" muted></video>'), 'v.mp4': 'x' })).includes(
        'block:forbidden-api',
      ),
    );
    assert.ok(
      rulesOf(
        4,
        facts({ 'index.html': html(HEAD + CLICK, '<video src="v.mp4" autoplay></video>'), 'v.mp4': 'x' }),
      ).includes('block:forbidden-api'),
    );
    assert.ok(rulesOf(5, facts({ 'index.html': html(HEAD + CLICK, '<svg></svg>') })).includes('block:inline-svg'));
    assert.ok(
      rulesOf(2, facts({ 'index.html': html(HEAD, '') }, { playSeconds: 12, loops: 3 })).includes(
        'advice:animation-length',
      ),
    );
    assert.ok(rulesOf(8, facts({ 'index.html': html(HEAD, '') }, { loops: 0 })).includes('advice:loops'));
  });
});
