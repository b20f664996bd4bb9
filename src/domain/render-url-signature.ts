// The signature of render URLs (docs/render-urls.md): HMAC-SHA256, hex, of the path, a `?` and the canonical query.
// The canonical query is every parameter but `s`, name and value each percent-encoded as RFC 3986 (everything but
// A–Z a–z 0–9 - . _ ~ as %XX, upper-case hex), joined as `name=value`, sorted as byte strings, joined with `&`. Sorting
// the encoded pairs (plain ASCII) gives the same order in JavaScript, Python and PHP without locale or Unicode rules.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The query parameter that carries the signature. */
export const SIGNATURE_PARAM = 's';

/** RFC 3986 percent-encoding: encodeURIComponent leaves ! ' ( ) * as they are, which Python and PHP encode. */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The canonical query of decoded parameters (the signature parameter left out). */
export function canonicalQuery(params: Iterable<readonly [string, string]>): string {
  const pairs: string[] = [];
  for (const [name, value] of params) {
    if (name !== SIGNATURE_PARAM) pairs.push(`${encodeRfc3986(name)}=${encodeRfc3986(value)}`);
  }
  return pairs.sort().join('&');
}

/** What is signed: the path as requested (`/r/abc1234.png`), `?`, the canonical query (possibly empty). */
export function stringToSign(path: string, params: Iterable<readonly [string, string]>): string {
  return `${path}?${canonicalQuery(params)}`;
}

/** The hex HMAC-SHA256 of a render URL with a team's secret (the secret string's UTF-8 bytes are the key). */
export function signRenderUrl(secret: string, path: string, params: Iterable<readonly [string, string]>): string {
  return createHmac('sha256', secret).update(stringToSign(path, params)).digest('hex');
}

/** Whether `signature` is the signature of the URL under `secret` (constant time). */
export function signatureMatches(
  secret: string,
  path: string,
  params: Iterable<readonly [string, string]>,
  signature: string,
): boolean {
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(signRenderUrl(secret, path, params), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The signed link's path and query: the canonical query with `s` appended. */
export function signedPathAndQuery(secret: string, path: string, params: ReadonlyArray<readonly [string, string]>) {
  const query = canonicalQuery(params);
  const signature = signRenderUrl(secret, path, params);
  return `${path}?${query ? `${query}&` : ''}${SIGNATURE_PARAM}=${signature}`;
}
