// One webhook call: signed as Standard Webhooks does, sent through the SSRF guard on a kept-alive connection, the
// answer's status read. Made in this process (a guard of the caller's own, the tests' fake DNS), or on the webhook
// thread (webhook-thread.ts), which runs this same code.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import type { UrlGuard } from '../net/url-guard.js';

export const USER_AGENT = 'Placard-Webhooks/1';

/** What is read of a receiver's answer before the connection is dropped; only the status matters. */
const ANSWER_BYTES = 4096;

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded part after `whsec_`. */
export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** One attempt at a delivery: its id, where it goes, its body, the team's secret and the attempt's time (seconds). */
export interface WebhookCall {
  id: string;
  url: string;
  payload: string;
  secret: string;
  timestamp: number;
}

export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  /** The guard refused the URL: no later attempt can do better. */
  refused: boolean;
}

/** Makes webhook calls through `guard`, each given up after `timeoutMs` (from DNS to the end of the answer's head). */
export function createWebhookCaller(guard: UrlGuard, timeoutMs: number): (call: WebhookCall) => Promise<AttemptResult> {
  async function within(call: WebhookCall, signal: AbortSignal): Promise<AttemptResult> {
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(call.payload),
      'user-agent': USER_AGENT,
      'webhook-id': call.id,
      'webhook-timestamp': String(call.timestamp),
      'webhook-signature': signPayload(call.secret, call.id, call.timestamp, call.payload),
    };
    let target: Awaited<ReturnType<UrlGuard['check']>>;
    try {
      target = await guard.check(call.url, { signal });
    } catch (error) {
      if (signal.aborted) return { statusCode: null, error: `no answer within ${timeoutMs} ms`, refused: false };
      const message = error instanceof Error ? error.message : String(error);
      // The guard words a host that does not resolve "cannot be fetched": DNS may answer later, a rule never will.
      const refused = error instanceof AppError && !message.includes('cannot be fetched');
      return { statusCode: null, error: message, refused };
    }
    try {
      const response = await guard.open(target, {
        method: 'POST',
        headers,
        body: call.payload,
        signal,
        keepAlive: true,
      });
      await drain(response, ANSWER_BYTES);
      return { statusCode: response.statusCode ?? null, error: null, refused: false };
    } catch (error) {
      if (signal.aborted) return { statusCode: null, error: `no answer within ${timeoutMs} ms`, refused: false };
      return { statusCode: null, error: error instanceof Error ? error.message : String(error), refused: false };
    }
  }

  return async (call) => {
    // A timer cleared when the call ends: AbortSignal.timeout's would fire long after a 2 ms call, building a
    // DOMException with its stack for every delivery (issue 21).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs).unref();
    try {
      return await within(call, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  };
}

function drain(response: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= limit) {
        response.destroy();
        resolve();
      }
    });
    response.once('end', resolve);
    response.once('error', () => resolve());
    response.once('close', resolve);
  });
}
