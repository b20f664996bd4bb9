// The lean signed PUT of the S3 blob store (storage/blobs/s3-signed.ts): a real S3-protocol server stores what it sends
// (s3rver checks the access key but not a version 4 signature, so the signature is checked here by the steps AWS
// documents for Signature Version 4, written out apart from the signer that made it), and a local HTTP server plays
// the failures S3 answers with, to see which are tried again (throttling, 5xx, a socket closed under the request) and
// which fail at once with S3's own code.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { after, describe, test } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketUrlOf, createS3BlobStore } from '../../../src/storage/blobs/s3.js';
import { createS3Signed, S3PutError } from '../../../src/storage/blobs/s3-signed.js';
import { createTestBucket, type TestBucket } from '../../helpers/s3-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A stand-in for S3 that answers each request with the next of `answers` (the last one repeats). */
async function fakeS3(answers: ((req: http.IncomingMessage, res: http.ServerResponse) => void)[]) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answers[Math.min(seen.length, answers.length) - 1](req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as net.AddressInfo).port;
  const put = createS3Signed({
    bucketUrl: async () => new URL(`http://127.0.0.1:${port}/bucket/`),
    region: 'us-east-1',
    accessKeyId: 'AKID',
    secretAccessKey: 'secret',
    backoffMs: () => 1,
  });
  cleanups.push(() => put.close());
  return { put, seen };
}

/** Whether a request's Authorization is the Signature Version 4 of what was received, under `secret`. */
function signatureHolds(request: Seen, secret: string): boolean {
  const match =
    /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(request.headers.authorization),
    );
  if (!match) return false;
  const [, day, region, signedHeaders, signature] = match;
  const canonicalRequest = [
    request.method,
    request.url,
    '',
    ...signedHeaders.split(';').map((name) => `${name}:${String(request.headers[name]).trim()}`),
    '',
    signedHeaders,
    String(request.headers['x-amz-content-sha256']),
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    String(request.headers['x-amz-date']),
    `${day}/${region}/s3/aws4_request`,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const key = [day, region, 's3', 'aws4_request'].reduce<string | Buffer>((k, part) => hmac(k, part), `AWS4${secret}`);
  return createHmac('sha256', key).update(stringToSign).digest('hex') === signature;
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(200).end();
const s3Error = (status: number, code: string, message: string) => (_req: unknown, res: http.ServerResponse) =>
  res
    .writeHead(status, { 'content-type': 'application/xml' })
    .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);

describe('S3 signed requests', () => {
  test("a link is the one the SDK's presigner makes, in path style and virtual-hosted style", async () => {
    const credentials = { accessKeyId: 'AKID', secretAccessKey: 'secret' };
    const signingDate = new Date('2026-12-01T08:00:00Z');
    const disposition = `attachment; filename="Sale _ 300x250.png"; filename*=UTF-8''Sale%20%E2%80%93%20300x250.png`;
    const cases = [
      { endpoint: 'http://127.0.0.1:9000', forcePathStyle: true, base: 'http://127.0.0.1:9000/my-bucket/' },
      { endpoint: 'https://s3.example.test', forcePathStyle: false, base: 'https://my-bucket.s3.example.test/' },
    ];
    for (const { endpoint, forcePathStyle, base } of cases) {
      // As the store's client is set up (s3.ts): checksums only where S3 requires them.
      const client = new S3Client({
        endpoint,
        forcePathStyle,
        region: 'eu-west-1',
        credentials,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      assert.equal(String(await bucketUrlOf(client, 'my-bucket')), base);
      const signed = createS3Signed({
        bucketUrl: () => bucketUrlOf(client, 'my-bucket'),
        region: 'eu-west-1',
        ...credentials,
      });
      const ours = await signed.presignGet('exports/ab/abc-1.png', {
        expiresIn: 600,
        contentDisposition: disposition,
        signingDate,
      });
      const command = new GetObjectCommand({
        Bucket: 'my-bucket',
        Key: 'exports/ab/abc-1.png',
        ResponseContentDisposition: disposition,
      });
      assert.equal(ours, await getSignedUrl(client, command, { expiresIn: 600, signingDate }));
      assert.ok(ours.startsWith(`${base}exports/ab/abc-1.png?`), ours);
      signed.close();
      client.destroy();
    }
  });

  let bucket: TestBucket;

  test('PUT: an S3 server stores the bytes and type it sends; an unknown access key is refused', async () => {
    bucket = await createTestBucket();
    cleanups.push(() => bucket.remove());
    const store = createS3BlobStore(bucket.settings);
    cleanups.push(() => store.close());
    const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    assert.deepEqual(await store.put('exports/ab/abc-1.png', body, 'image/png'), { size: 5000 });
    const blob = await store.get('exports/ab/abc-1.png');
    const chunks: Buffer[] = [];
    for await (const chunk of blob!.body) chunks.push(chunk as Buffer);
    assert.deepEqual([blob!.contentType, Buffer.concat(chunks).equals(body)], ['image/png', true]);
    // Replaced whole by a second put under the same key.
    await store.put('exports/ab/abc-1.png', Buffer.from('second'), 'image/jpeg');
    assert.equal((await store.get('exports/ab/abc-1.png'))!.size, 6);

    const forged = createS3BlobStore({ ...bucket.settings, accessKeyId: 'NOT-A-KEY' });
    cleanups.push(() => forged.close());
    await assert.rejects(forged.put('exports/ab/abc-2.png', body, 'image/png'), (error: S3PutError) => {
      assert.equal(error.name, 'InvalidAccessKeyId');
      assert.equal(error.statusCode, 403);
      return true;
    });
    assert.deepEqual(await bucket.keys(), ['exports/ab/abc-1.png']);
  });

  test('PUT: one signed request to the bucket URL plus the key, the body hash signed over HTTP', async () => {
    const { put, seen } = await fakeS3([ok]);
    const body = Buffer.from('picture bytes');
    await put.put('thumbnails/d1/t.png', body, 'image/png');
    assert.equal(seen.length, 1);
    const [request] = seen;
    assert.deepEqual([request.method, request.url], ['PUT', '/bucket/thumbnails/d1/t.png']);
    assert.equal(request.headers['content-type'], 'image/png');
    assert.equal(request.headers['content-length'], String(body.length));
    assert.equal(request.headers['x-amz-content-sha256'], createHash('sha256').update(body).digest('hex'));
    assert.match(
      String(request.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]*content-type[a-z0-9;-]*x-amz-content-sha256[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    assert.ok(request.body.equals(body));
    assert.equal(signatureHolds(request, 'secret'), true);
    assert.equal(signatureHolds(request, 'another secret'), false);
    assert.equal(signatureHolds({ ...request, url: '/bucket/thumbnails/d1/u.png' }, 'secret'), false);
  });

  test('PUT: throttling and 5xx answers are tried again, up to three attempts in all', async () => {
    const slow = await fakeS3([s3Error(503, 'SlowDown', 'Please reduce your request rate.'), ok]);
    await slow.put.put('a/b.png', Buffer.from('x'), 'image/png');
    assert.equal(slow.seen.length, 2);

    const broken = await fakeS3([s3Error(500, 'InternalError', 'We encountered an internal error.')]);
    await assert.rejects(broken.put.put('a/c.png', Buffer.from('x'), 'image/png'), (error: S3PutError) => {
      assert.equal(error.name, 'InternalError');
      assert.equal(error.statusCode, 500);
      assert.match(error.message, /^PUT a\/c\.png: InternalError \(500\): We encountered an internal error\.$/);
      return true;
    });
    assert.equal(broken.seen.length, 3);
  });

  test('PUT: a socket closed under the request is tried again on a new one', async () => {
    const { put, seen } = await fakeS3([(req) => req.socket.destroy(), ok]);
    await put.put('a/d.png', Buffer.from('body'), 'image/png');
    assert.equal(seen.length, 2);
    assert.equal(seen[1].body.toString(), 'body');
  });

  test('PUT: a refusal fails at once with S3 code, status and message', async () => {
    const { put, seen } = await fakeS3([s3Error(403, 'AccessDenied', 'Access Denied')]);
    await assert.rejects(put.put('a/e.png', Buffer.from('x'), 'image/png'), (error: S3PutError) => {
      assert.ok(error instanceof S3PutError);
      assert.deepEqual([error.name, error.statusCode, error.retryable], ['AccessDenied', 403, false]);
      assert.equal(error.message, 'PUT a/e.png: AccessDenied (403): Access Denied');
      return true;
    });
    assert.equal(seen.length, 1);

    const bare = await fakeS3([(_req, res) => res.writeHead(400).end()]);
    await assert.rejects(bare.put.put('a/f.png', Buffer.from('x'), 'image/png'), /PUT a\/f\.png: HTTP400 \(400\)/);
  });
});
