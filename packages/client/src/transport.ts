// The fetch that every call of the client goes through: it adds the bearer token (fetching and refreshing it), gives
// each POST an Idempotency-Key, retries 429/503 (and network failures) with backoff honouring Retry-After — only when
// a repeat cannot act twice: idempotent methods, or a POST carrying an Idempotency-Key — and turns every non-2xx
// answer into a PlacardError. Written by hand (rather than a retry library) to keep the package free of dependencies
// beyond openapi-fetch and usable in browsers.
import { errorFromResponse, PlacardError, parseRetryAfter } from './errors.js';

export interface RetryOptions {
  /** Attempts after the first. Default 3. */
  retries?: number;
  /** First backoff without a Retry-After, doubled at each attempt (with full jitter). Default 250 ms. */
  baseDelayMs?: number;
  /** The longest wait the client accepts; a Retry-After beyond it fails at once. Default 30,000 ms. */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  /** A fixed token, or a function that returns one (the caller refreshes it). */
  token?: string | (() => string | Promise<string>);
  clientId?: string;
  clientSecret?: string;
  retry?: RetryOptions;
  /** Send a generated Idempotency-Key with every POST that has none (so that POSTs can be retried). Default true. */
  idempotencyKeys?: boolean;
  /** The fetch to use. Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Called before each retry with the attempt number (1…), the wait and why. */
  onRetry?: (info: { attempt: number; delayMs: number; status: number; code: string; url: string }) => void;
  /** The clock, in ms. Default Date.now. */
  now?: () => number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const TOKEN_PATH = '/v1/auth/token';

interface HeldToken {
  value: string;
  /** Refresh from this instant on (ms), ahead of the expiry. */
  refreshAt: number;
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Transport {
  /** Sends a request through auth, idempotency keys and retries; resolves with a 2xx response or throws. */
  send(request: Request, options?: { auth?: boolean }): Promise<Response>;
  /** The current bearer token (fetching one first when needed). */
  token(): Promise<string>;
  /** Forgets the held token: the next call fetches a new one. */
  invalidateToken(): void;
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const now = options.now ?? Date.now;
  const retries = options.retry?.retries ?? 3;
  const baseDelayMs = options.retry?.baseDelayMs ?? 250;
  const maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
  const withKeys = options.idempotencyKeys ?? true;
  const canRefresh = Boolean(options.clientId && options.clientSecret);
  if (!options.token && !canRefresh) {
    throw new TypeError('createClient needs `token`, or `clientId` and `clientSecret`');
  }

  let held: HeldToken | null = null;
  let pending: Promise<HeldToken> | null = null;

  async function fetchToken(): Promise<HeldToken> {
    const request = new Request(baseUrl + TOKEN_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: options.clientId, clientSecret: options.clientSecret }),
    });
    // The token route changes nothing, so it is retried like an idempotent request.
    const response = await send(request, { auth: false, retryable: true });
    const body = (await response.json()) as { token: string; response?: { expiresIn?: number } };
    const ttlMs = (body.response?.expiresIn ?? 3600) * 1000;
    // Refresh ahead of the expiry (a tenth of the lifetime, at most a minute) so a call never starts on a token that
    // expires on the way; a clock that is off is caught by the 401 path below.
    return { value: body.token, refreshAt: now() + ttlMs - Math.min(60_000, ttlMs / 10) };
  }

  async function token(): Promise<string> {
    if (typeof options.token === 'string') return options.token;
    if (typeof options.token === 'function') return options.token();
    if (held && now() < held.refreshAt) return held.value;
    // One refresh at a time: concurrent calls share it.
    pending ??= fetchToken().finally(() => {
      pending = null;
    });
    held = await pending;
    return held.value;
  }

  function backoff(attempt: number): number {
    return Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  }

  async function send(
    request: Request,
    { auth = true, retryable }: { auth?: boolean; retryable?: boolean } = {},
  ): Promise<Response> {
    const method = request.method.toUpperCase();
    if (withKeys && method === 'POST' && auth && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    const canRetry = retryable ?? (IDEMPOTENT.has(method) || request.headers.has('idempotency-key'));
    // A request with a body can be sent once; later attempts are rebuilt from its bytes.
    const body = request.body === null ? null : await request.arrayBuffer();
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const current = attempt === 0 && body === null ? request : new Request(request, body === null ? {} : { body });
      if (auth) current.headers.set('authorization', `Bearer ${await token()}`);
      let response: Response;
      try {
        response = await doFetch(current);
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (!canRetry || attempt >= retries) {
          throw new PlacardError(`${method} ${request.url}: ${(error as Error)?.message ?? error}`, {
            status: 0,
            code: 'NETWORK_ERROR',
            cause: error,
          });
        }
        const delayMs = backoff(attempt + 1);
        options.onRetry?.({ attempt: attempt + 1, delayMs, status: 0, code: 'NETWORK_ERROR', url: request.url });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (response.ok) return response;
      // An expired or revoked token: fetch a new one once and repeat (the service refused before doing anything).
      if (response.status === 401 && auth && canRefresh && !refreshed) {
        await response.body?.cancel();
        refreshed = true;
        held = null;
        attempt--;
        continue;
      }
      const transient =
        response.status === 429 ||
        response.status === 503 ||
        (response.status === 409 && response.headers.has('retry-after'));
      if (transient && canRetry && attempt < retries) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'), now());
        // Never sooner than the service asked; a little jitter on top so that many clients do not return at once.
        const delayMs = retryAfter === null ? backoff(attempt + 1) : retryAfter * 1000 + Math.random() * 100;
        if (delayMs <= maxDelayMs) {
          await response.body?.cancel();
          options.onRetry?.({
            attempt: attempt + 1,
            delayMs,
            status: response.status,
            code: response.status === 429 ? 'RATE_LIMITED' : response.status === 503 ? 'UNAVAILABLE' : 'CONFLICT',
            url: request.url,
          });
          await sleep(delayMs, request.signal);
          continue;
        }
      }
      throw await errorFromResponse(response);
    }
  }

  return {
    send: (request, opts) => send(request, opts),
    token,
    invalidateToken() {
      held = null;
    },
  };
}
