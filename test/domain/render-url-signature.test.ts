// The render-URL signature (docs/render-urls.md): a vector written out by hand, tampering, and the documentation's own
// Node and Python examples run as they are printed, which must sign exactly as the service verifies.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  canonicalQuery,
  signatureMatches,
  signedPathAndQuery,
  signRenderUrl,
} from '../../src/domain/render-url-signature.js';

const SECRET = 'prs_test-secret';
const PARAMS: Record<string, string> = {
  headline: "Hello Ada & Co!*'()",
  'cta.BGCOLOR': '#10B981',
  photo: 'https://cdn.example.com/p.jpg?w=300',
  greeting: 'Grüße 👋 ~ a+b',
  exp: '1893456000',
};

function codeBlock(language: string): string {
  const doc = fs.readFileSync(new URL('../../docs/render-urls.md', import.meta.url), 'utf8');
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(doc);
  assert.ok(block, `docs/render-urls.md has a ${language} example`);
  return block[1];
}

describe('render URL signature', () => {
  test('a vector spelled out by hand: encoded pairs sorted as bytes, path, ?, hex HMAC-SHA256', () => {
    const params: Array<[string, string]> = [
      ['headline', 'Hello Ada'],
      ['cta.BGCOLOR', '#10B981'],
      ['a', "!'()*"],
    ];
    const canonical = 'a=%21%27%28%29%2A&cta.BGCOLOR=%2310B981&headline=Hello%20Ada';
    assert.equal(canonicalQuery(params), canonical);
    const expected = createHmac('sha256', SECRET).update(`/r/abc1234.png?${canonical}`).digest('hex');
    assert.equal(signRenderUrl(SECRET, '/r/abc1234.png', params), expected);
    assert.equal(signedPathAndQuery(SECRET, '/r/abc1234.png', params), `/r/abc1234.png?${canonical}&s=${expected}`);
    // No parameters: the string to sign ends with "?".
    const bare = createHmac('sha256', SECRET).update('/r/abc1234.png?').digest('hex');
    assert.equal(signedPathAndQuery(SECRET, '/r/abc1234.png', []), `/r/abc1234.png?s=${bare}`);
  });

  test('the order given does not matter; a changed value, path or secret does', () => {
    const entries = Object.entries(PARAMS);
    const s = signRenderUrl(SECRET, '/r/abc1234.png', entries);
    assert.ok(signatureMatches(SECRET, '/r/abc1234.png', [...entries].reverse(), s));
    assert.ok(
      !signatureMatches(SECRET, '/r/abc1234.png', [...entries.slice(1), ['headline', 'x'] as [string, string]], s),
    );
    assert.ok(!signatureMatches(SECRET, '/r/abc1234.jpg', entries, s));
    assert.ok(!signatureMatches('prs_other', '/r/abc1234.png', entries, s));
    assert.ok(!signatureMatches(SECRET, '/r/abc1234.png', entries, s.toUpperCase()));
    assert.ok(!signatureMatches(SECRET, '/r/abc1234.png', entries, 'zz'));
  });

  test('the Node example of the documentation signs as the service verifies', () => {
    const code = codeBlock('js').split('\nconst params')[0];
    const file = path.join(os.tmpdir(), `placard-sign-${process.pid}.mjs`);
    fs.writeFileSync(
      file,
      `${code}\nconsole.log(signRenderUrl('https://p.example', process.env.PLACARD_RENDER_URL_SECRET, '/r/abc1234.png', JSON.parse(process.env.PARAMS)));\n`,
    );
    try {
      const out = execFileSync(process.execPath, [file], {
        env: { ...process.env, PLACARD_RENDER_URL_SECRET: SECRET, PARAMS: JSON.stringify(PARAMS) },
        encoding: 'utf8',
      }).trim();
      assert.equal(out, `https://p.example${signedPathAndQuery(SECRET, '/r/abc1234.png', Object.entries(PARAMS))}`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  test('the Python example of the documentation signs as the service verifies', () => {
    const python = spawnSync('python3', ['--version']);
    assert.ok(!python.error, 'python3 is needed: apt-get install python3');
    const code = codeBlock('python').split('\nparams =')[0];
    const script = `${code}\nimport json\nprint(sign_render_url("https://p.example", os.environ["PLACARD_RENDER_URL_SECRET"], "/r/abc1234.png", json.loads(os.environ["PARAMS"])))\n`;
    const out = execFileSync('python3', ['-c', script], {
      env: { ...process.env, PLACARD_RENDER_URL_SECRET: SECRET, PARAMS: JSON.stringify(PARAMS) },
      encoding: 'utf8',
    }).trim();
    assert.equal(out, `https://p.example${signedPathAndQuery(SECRET, '/r/abc1234.png', Object.entries(PARAMS))}`);
  });
});
