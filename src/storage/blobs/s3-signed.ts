// The two S3 requests of every export, signed by the AWS SDK's own signer (@smithy/signature-v4) without the S3
// client's command stack: a PUT of an object held in memory, sent on a keep-alive socket, and a presigned GET link.
// The client does everything else (streams and multipart uploads, reads, deletes). Why: the client's stack (endpoint
// rules, schema serialisation, a dozen middleware; for a link, a new signer and a copy of the stack per call) cost
// 2.1 ms of main-thread CPU per PutObject on the bench machine against 0.5 ms for the same signed request (issue 21,
// stop 31), and a worker of the scaled-out shape stores two objects per export with changes (the file and the new
// design's thumbnail) and signs its link for the webhook. What the client would decide stays the client's: the
// bucket's address is taken from a URL it presigns (its endpoint rules choose path or virtual-hosted style), a link
// is the one its presigner makes (s3-signed.test.ts compares them), and retries follow its standard mode (three
// attempts, exponential backoff with full jitter, on network errors, throttling and 5xx answers).
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { formatUrl } from '@aws-sdk/core/util';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/** An S3 error answer (its XML `Code` and `Message`) or a failure to get one (no status). */
export class S3PutError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = code;
  }
}

export interface S3SignedOptions {
  /** The bucket's URL, ending in '/': a key's object is at this URL plus the key (keys need no escaping). */
  bucketUrl: () => Promise<URL>;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Once per HTTP request, each attempt included, with its time in ms. */
  onRequest?: (ms: number) => void;
  /** Before attempt `n` (2, 3): the SDK's standard mode by default, a random wait up to 100 ms × 2^(n−2). */
  backoffMs?: (attempt: number) => number;
}

const ATTEMPTS = 3;
/** A socket that sends nothing for this long is given up (and the PUT tried again). */
const IDLE_MS = 60_000;
/** Error codes S3 answers that a later attempt can get past, beside every 5xx and 429. */
const RETRYABLE_CODES = new Set(['SlowDown', 'RequestTimeout', 'RequestTimeTooSkewed', 'InternalError', 'Throttling']);
/** Network failures worth another attempt, as the SDK's: a keep-alive socket the server closed meanwhile among them. */
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/** The `Code` and `Message` of an S3 error document; a body that is none says so. */
function errorOf(status: number, body: string, key: string): S3PutError {
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1] ?? `HTTP${status}`;
  const detail = /<Message>([^<]*)<\/Message>/.exec(body)?.[1] ?? (body.slice(0, 200) || 'no error document');
  const retryable = status >= 500 || status === 429 || RETRYABLE_CODES.has(code);
  return new S3PutError(code, `PUT ${key}: ${code} (${status}): ${detail}`, status, retryable);
}

export function createS3Signed(options: S3SignedOptions) {
  const signer = new SignatureV4({
    service: 's3',
    region: options.region,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    sha256: Sha256,
    // S3 signs the path as sent, not escaped twice; keys are letters, digits, '.', '_', '-' and '/' (blob-store.ts).
    uriEscapePath: false,
  });
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 50 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 50 }),
  };
  const backoffMs = options.backoffMs ?? ((attempt) => Math.random() * Math.min(20_000, 100 * 2 ** (attempt - 2)));

  async function attempt(url: URL, key: string, body: Uint8Array, contentType: string): Promise<void> {
    const secure = url.protocol === 'https:';
    const signed = await signer.sign({
      method: 'PUT',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        'content-type': contentType,
        'content-length': String(body.byteLength),
        // The body's hash is signed where nothing else protects it, as the AWS CLI does; TLS does over HTTPS.
        'x-amz-content-sha256': secure ? 'UNSIGNED-PAYLOAD' : createHash('sha256').update(body).digest('hex'),
      },
    });
    const started = performance.now();
    try {
      await new Promise<void>((resolve, reject) => {
        const request = (secure ? https : http).request(
          url,
          { method: 'PUT', agent: secure ? agents.https : agents.http, headers: signed.headers, timeout: IDLE_MS },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              if (status >= 200 && status < 300) resolve();
              else reject(errorOf(status, Buffer.concat(chunks).toString('utf8'), key));
            });
          },
        );
        request.on('timeout', () =>
          request.destroy(new S3PutError('RequestTimeout', `PUT ${key}: no answer for ${IDLE_MS} ms`, undefined, true)),
        );
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (error instanceof S3PutError) return reject(error);
          const code = error.code ?? 'NetworkError';
          reject(new S3PutError(code, `PUT ${key}: ${error.message}`, undefined, TRANSIENT_NETWORK.has(code)));
        });
        request.end(body);
      });
    } finally {
      options.onRequest?.(performance.now() - started);
    }
  }

  return {
    /** Stores `body` under `key`, replacing what was there. */
    async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
      const url = new URL(key, await options.bucketUrl());
      for (let n = 1; ; n++) {
        try {
          return await attempt(url, key, body, contentType);
        } catch (error) {
          if (!(error instanceof S3PutError) || !error.retryable || n >= ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, backoffMs(n + 1)));
        }
      }
    },

    /**
     * A link that downloads `key` until `expiresIn` seconds from now, S3 answering with `contentDisposition`: the
     * signature covers it. As the SDK's presigner makes it: the same query, the payload unsigned, content-type not
     * signed.
     */
    async presignGet(
      key: string,
      {
        expiresIn,
        contentDisposition,
        signingDate,
      }: { expiresIn: number; contentDisposition: string; signingDate?: Date },
    ): Promise<string> {
      const url = new URL(key, await options.bucketUrl());
      const presigned = await signer.presign(
        {
          method: 'GET',
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port ? Number(url.port) : undefined,
          path: url.pathname,
          query: { 'response-content-disposition': contentDisposition, 'x-id': 'GetObject' },
          headers: { host: url.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
        },
        { expiresIn, signingDate, unsignableHeaders: new Set(['content-type']), unhoistableHeaders: new Set() },
      );
      return formatUrl(presigned as Parameters<typeof formatUrl>[0]);
    },

    /** Closes the kept sockets. */
    close(): void {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
