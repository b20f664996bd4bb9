// signRenderUrl of @placard/client signs exactly as the service verifies (src/domain/render-url-signature.ts): the
// same canonical query for awkward names and values, and the same hex HMAC.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signRenderUrl } from '@placard/client';
import { signatureMatches } from '../../src/domain/render-url-signature.js';

test('a link signed by the client verifies with the service signer; a changed value does not', async () => {
  const secret = 'prs_test-secret-Ünïcode';
  const url = new URL(
    await signRenderUrl({
      baseUrl: 'https://placard.example.com/',
      secret,
      templateHash: 'abc1234',
      size: '300x250',
      format: 'jpg',
      params: { headline: "Hello Ada! (it's 50% off) – 日本", 'cta.BGCOLOR': '#10B981', scale: 2 },
      expiresAt: new Date('2030-01-01T00:00:00Z'),
    }),
  );
  assert.equal(url.origin + url.pathname, 'https://placard.example.com/r/abc1234/300x250.jpg');
  const signature = url.searchParams.get('s') ?? '';
  assert.match(signature, /^[0-9a-f]{64}$/);
  const params = [...url.searchParams.entries()].filter(([name]) => name !== 's');
  assert.deepEqual(Object.fromEntries(params).exp, String(Date.UTC(2030, 0, 1) / 1000));
  assert.ok(signatureMatches(secret, url.pathname, params, signature));
  const tampered = params.map(([n, v]) => [n, n === 'headline' ? `${v}!` : v] as const);
  assert.equal(signatureMatches(secret, url.pathname, tampered, signature), false);
  assert.equal(signatureMatches('prs_other', url.pathname, params, signature), false);
});
