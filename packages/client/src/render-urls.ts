// Signing render URLs (docs/render-urls.md) on the caller's side, so that an email or a page can carry personalised
// image links without an API call per link. WebCrypto only: it runs in browsers, workers and Node 20+ alike. The
// canonical form must be the service's byte for byte: the path, `?`, every parameter but `s` as RFC 3986-encoded
// `name=value` pairs sorted as byte strings and joined with `&`; the signature is the hex HMAC-SHA256 of that with the
// team's render-URL secret (GET /v1/renderUrls/secret).

/** RFC 3986 percent-encoding: encodeURIComponent leaves ! ' ( ) * alone, which the canonical form encodes. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface RenderUrlOptions {
  /** Where the service answers, e.g. `https://placard.example.com`. */
  baseUrl: string;
  /** The team's render-URL secret (`prs_…`). */
  secret: string;
  /** The design (template) hash. */
  templateHash: string;
  /** png, jpg, webp or avif. */
  format: 'png' | 'jpg' | 'jpeg' | 'webp' | 'avif';
  /** A size of a set, by its hash or as `WxH`; default the first size. */
  size?: string;
  /**
   * Element changes and settings as query parameters: `headline` (an element's main attribute), `cta.BGCOLOR`,
   * `scale`, `quality`, `version`… Values are strings or numbers.
   */
  params?: Record<string, string | number>;
  /** The link stops working after this moment (signed as `exp`, Unix seconds). */
  expiresAt?: Date;
}

/** The signed link of a render URL: `GET` it to receive the image. */
export async function signRenderUrl(options: RenderUrlOptions): Promise<string> {
  const path = `/r/${options.templateHash}${options.size ? `/${options.size}` : ''}.${options.format}`;
  const params: [string, string][] = Object.entries(options.params ?? {}).map(([name, value]) => [name, String(value)]);
  if (options.expiresAt) params.push(['exp', String(Math.floor(options.expiresAt.getTime() / 1000))]);
  const query = params
    .filter(([name]) => name !== 's')
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .sort()
    .join('&');
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(options.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${path}?${query}`)));
  const signature = [...mac].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${options.baseUrl.replace(/\/+$/, '')}${path}?${query ? `${query}&` : ''}s=${signature}`;
}
