// Verification of Standard Webhooks signatures (SPEC §8): `webhook-signature` holds one or more `v1,<base64
// HMAC-SHA256 of "id.timestamp.body">` keyed by the base64 part of the `whsec_` secret. WebCrypto only (no node:crypto),
// so it runs in browsers, workers and Node 20+ alike; `crypto.subtle.verify` compares in constant time.
import { WebhookVerificationError } from './errors.js';
import type { paths } from './openapi.js';

/** The status of an export, exactly as `GET /v1/export/{exportId}` answers it. */
export type ExportStatus =
  paths['/v1/export/{exportId}']['get']['responses'][200]['content']['application/json']['response'];

/** A delivery's payload (SPEC §8). `data.export` is present on `export/complete` and `export/failed`. */
export interface WebhookEvent {
  /** Delivery id; the same as the `webhook-id` header (deliveries may repeat: deduplicate on it). */
  id: string;
  action: string;
  teamId: number;
  occurredAt: string;
  data: { export?: ExportStatus; [key: string]: unknown };
}

/** Headers as fetch (`Headers`), Node (`IncomingHttpHeaders`) or a plain object hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The largest distance between `webhook-timestamp` and now, against replays. Default 300 s. */
  toleranceSeconds?: number;
  /** The clock, in ms. Default Date.now. */
  now?: () => number;
}

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : (value ?? null);
}

function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/**
 * Checks a webhook delivery's signature and age, and returns its parsed payload; throws WebhookVerificationError
 * otherwise. Pass the body exactly as received (the raw string or bytes, not a re-serialised object).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  { toleranceSeconds = 300, now = Date.now }: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  if (Math.abs(now() / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${toleranceSeconds} s away from now`);
  }
  const keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('the secret is not whsec_ and base64');
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${text}`);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const signature = base64ToBytes(value);
    if (signature && (await crypto.subtle.verify('HMAC', key, signature, signed))) {
      try {
        return JSON.parse(text) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('the signed body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no v1 signature of webhook-signature matches the body');
}
