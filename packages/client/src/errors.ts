// Errors the client throws. Every non-2xx answer of the service becomes a PlacardError carrying the error envelope
// of SPEC §3 (`error`, `code`, `details`, `requestId`), so callers branch on `code`, never on message text.

/** One entry of `details` (validation failures): a JSON pointer to the field and what is wrong with it. */
export interface PlacardErrorDetail {
  path: string;
  message: string;
  in?: string;
}

/** A non-2xx answer of the service, or a network failure after every retry (`status` 0, `code` `NETWORK_ERROR`). */
export class PlacardError extends Error {
  override readonly name = 'PlacardError';
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** Stable UPPER_SNAKE identifier from the service's error catalogue (`docs/errors.md`). */
  readonly code: string;
  /** Per-field problems of a validation failure; empty otherwise. */
  readonly details: PlacardErrorDetail[];
  /** The `X-Request-Id` of the failed request: the service's log has it. */
  readonly requestId: string | null;
  /** Seconds the service asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | null;

  constructor(
    message: string,
    init: {
      status: number;
      code: string;
      details?: PlacardErrorDetail[];
      requestId?: string | null;
      retryAfter?: number | null;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** `waitForExport` ran past its `timeoutMs`; the export goes on in the service. */
export class PlacardTimeoutError extends Error {
  override readonly name = 'PlacardTimeoutError';
  constructor(
    message: string,
    /** The last status seen, when one was. */
    readonly lastSeen: unknown = null,
  ) {
    super(message);
  }
}

/** A webhook delivery whose signature, timestamp or headers do not check out: answer it with a 4xx and ignore it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The PlacardError of a non-2xx response; reads its body. */
export async function errorFromResponse(response: Response): Promise<PlacardError> {
  const text = await response.text().catch(() => '');
  let body: { error?: unknown; code?: unknown; details?: unknown; requestId?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not the error envelope (a proxy's page, an S3 XML error): keep the text as the message.
  }
  const requestId =
    typeof body.requestId === 'string' ? body.requestId : (response.headers.get('x-request-id') ?? null);
  return new PlacardError(
    typeof body.error === 'string' ? body.error : `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    {
      status: response.status,
      code: typeof body.code === 'string' ? body.code : `HTTP_${response.status}`,
      details: Array.isArray(body.details) ? (body.details as PlacardErrorDetail[]) : [],
      requestId,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    },
  );
}
