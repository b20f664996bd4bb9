// The catalogue of every error code the API answers with (SPEC §3). docs/errors.md is generated from it
// (`npm run docs`) and test/errors.test.ts fails when the two drift apart.

export const ERROR_CATALOGUE = {
  INVALID_JSON: { status: 400, description: 'The body is not valid JSON.' },
  VALIDATION_FAILED: {
    status: 400,
    description: 'A field breaks its rule; `details` names each field (JSON pointer) and the rule.',
  },
  INVALID_CURSOR: {
    status: 400,
    description: 'The cursor is not one this API issued, or it belongs to another query (other filters or order).',
  },
  UNAUTHENTICATED: { status: 401, description: 'No bearer token, or one that is malformed, unknown or revoked.' },
  TOKEN_EXPIRED: {
    status: 401,
    description: 'The bearer token has expired; ask for a new one at POST /v1/auth/token.',
  },
  INVALID_CREDENTIALS: { status: 401, description: 'The clientId and clientSecret pair is wrong.' },
  FORBIDDEN: { status: 403, description: 'The role of the caller lacks the permission for this action.' },
  CSRF_REJECTED: {
    status: 403,
    description:
      'A state-changing request authenticated by the session cookie came from another site, or without the X-CSRF-Token header of its session.',
  },
  INVALID_SIGNATURE: {
    status: 403,
    description: 'A render URL is unsigned, or its signature does not match its path and query (docs/render-urls.md).',
  },
  LINK_EXPIRED: { status: 403, description: 'A signed render URL is past its `exp`; sign a new one.' },
  NOT_FOUND: { status: 404, description: 'The object does not exist or is not visible to the caller.' },
  EMAIL_TAKEN: { status: 409, description: 'A user of the team already has this email address.' },
  LAST_OWNER: { status: 409, description: 'The change would leave the team without an Owner.' },
  BRANDKIT_IN_USE: { status: 409, description: 'A project still uses this brand kit.' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    description: 'The Idempotency-Key was already used within 24 hours with another request body.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    description: 'A request with this Idempotency-Key is still being processed; retry when it has finished.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    description: 'The path exists but not with this method; the Allow header lists the methods it serves.',
  },
  REQUEST_TIMEOUT: { status: 408, description: 'The request was not received completely in time.' },
  STALE_REVISION: {
    status: 412,
    description:
      'The If-Match header names a revision of the design document that is no longer current: someone saved it since. Read it again (its ETag is the current revision) or send the current ETag to overwrite knowingly.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body is larger than 1 MiB.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description: 'The body is not sent as application/json, or in a charset other than UTF-8.',
  },
  REQUEST_TOO_LARGE: {
    status: 431,
    description: 'The request line or headers are larger than the server accepts (16 KiB); shorten the URL.',
  },
  UNKNOWN_ELEMENT: { status: 422, description: 'No size of the design has an element of this name.' },
  ATTRIBUTE_NOT_APPLICABLE: { status: 422, description: 'The element type does not accept this change attribute.' },
  INVALID_ELEMENT_CHANGE: {
    status: 422,
    description: 'The value of an element change breaks the rule of its attribute.',
  },
  FONT_VARIANT_UNAVAILABLE: { status: 422, description: "The element's font family has no such variant." },
  UNKNOWN_SIZE_HASH: { status: 422, description: 'A size hash is not one of the design.' },
  SOURCE_REJECTED: {
    status: 422,
    description: 'A media source cannot be used: unreachable, wrong type, too large or a private address.',
  },
  FONT_REJECTED: {
    status: 422,
    description:
      'A font file cannot be used: not a TTF, OTF, WOFF, WOFF2 or TTC font, damaged tables, over 10 MB, or a face the brand kit already has.',
  },
  FONT_NOT_EMBEDDABLE: {
    status: 422,
    description:
      'A PDF or HTML5 file would embed a brand font whose licence (OS/2 fsType) forbids embedding; the message names the font. Raster and video formats still draw it.',
  },
  INVALID_MOVE: { status: 422, description: 'The move is impossible (into its own subtree, or into another project).' },
  UNPROCESSABLE: {
    status: 422,
    description: 'The request is well-formed but refers to something that cannot be used.',
  },
  RATE_LIMITED: { status: 429, description: 'Too many requests for the team in this window; see Retry-After.' },
  TEAM_QUEUE_FULL: {
    status: 429,
    description:
      "The team's exports already have as many files waiting or rendering as its limit allows (PLACARD_TEAM_FILES_IN_FLIGHT); see Retry-After.",
  },
  INTERNAL: { status: 500, description: 'A bug. The response carries no detail; the log has it under the request id.' },
  AD_NETWORK_RULE: {
    status: 422,
    description:
      'An HTML5 package breaks a blocking packaging rule of its ad network (adnetworks.md); the message names the rules.',
  },
  PREFLIGHT_FAILED: {
    status: 422,
    description:
      'Preflight found errors in the file and `exportSettings.preflight` is `fail`: the file was not made (an export errorLog code; its findings are listed on the creative).',
  },
  NOT_IMPLEMENTED: {
    status: 501,
    description: 'The route is declared in the contract but not served by this version.',
  },
  UNAVAILABLE: {
    status: 503,
    description:
      "The service is shutting down, its queue is full, or an export's expected wait passes PLACARD_MAX_QUEUE_WAIT_SECONDS; see Retry-After.",
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Codes of a failed file in an export's `errorLog` (SPEC §6), never an HTTP answer: the export request was accepted,
 * one of its files could not be made. Codes of the catalogue above can appear there too (SOURCE_REJECTED).
 */
export const EXPORT_FAILURE_CODES = {
  SOURCE_REJECTED: 'A media source of the file could not be used; the message names the URL and the reason.',
  RENDER_TIMEOUT: 'Rendering the file took longer than its budget (60 s for stills, 10 min for video; configurable).',
  RENDER_CRASHED: 'Rendering the file crashed the render worker three times in a row.',
  STORAGE_FAILED: 'The file was rendered but could not be stored, three times in a row.',
  PREFLIGHT_FAILED:
    'Preflight found errors in the file (exportSettings.preflight: fail), so it was not rendered; the creative lists the findings.',
  EXPORT_FAILED: 'The code of an errorLog whose failures have different codes, or of an export that could not finish.',
} as const satisfies Record<string, string>;

export type ExportFailureCode = keyof typeof EXPORT_FAILURE_CODES;

export interface ErrorDetail {
  /** JSON pointer of the offending field, e.g. /elementsChanges/0/changes/1/value. */
  path: string;
  message: string;
  /** Which part of the request: body, querystring, params or headers. */
  in?: string;
}

/** A failure with a stable code; its HTTP status comes from the catalogue. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** Renders the catalogue as the Markdown of docs/errors.md. */
export function renderErrorsMarkdown(): string {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from src/errors.ts by `npm run docs`. Do not edit by hand. -->',
    '',
    'Every failure is JSON with a non-200 status:',
    '',
    '```json',
    '{ "error": "name: must NOT be longer than 200 characters", "code": "VALIDATION_FAILED",',
    '  "details": [ { "path": "/name", "in": "body", "message": "must NOT be longer than 200 characters" } ],',
    '  "requestId": "5b0e8c1e-…" }',
    '```',
    '',
    '`error` is a sentence for people; `code` is stable and meant for programs; `details` comes with validation failures.',
    '',
    '| code | status | meaning |',
    '|---|---|---|',
  ];
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    lines.push(`| \`${code}\` | ${entry.status} | ${entry.description} |`);
  }
  lines.push(
    '',
    '## Codes in an export’s errorLog',
    '',
    'An accepted export whose files could not all be made reports each failed file in `errorLog.failures` ' +
      '(`creativeId`, `sizeHash`, `slideNumber`, `code`, `message`); `errorLog.code` is the code they share.',
    '',
    '| code | meaning |',
    '|---|---|',
  );
  for (const [code, description] of Object.entries(EXPORT_FAILURE_CODES))
    lines.push(`| \`${code}\` | ${description} |`);
  return `${lines.join('\n')}\n`;
}
