// BlobStore on S3-compatible object storage (the scaled-out shape): every API and worker process, on any machine,
// sees the same objects. S3 replaces an object whole on put (a failed multipart upload is aborted and leaves the old
// one), and downloads go straight to S3 through presigned GET links that ask S3 to send the Content-Disposition the
// local-disk /files route would send; the signature covers that name, so it cannot be changed.
import { PassThrough, type Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Settings } from '../../config.js';
import { roundTrips } from '../round-trips.js';
import { assertBlobKey, type BlobStore, type SignedUrlOptions, type StoredBlob } from './blob-store.js';
import { contentDisposition } from './content-disposition.js';
import { createS3Signed } from './s3-signed.js';

export interface S3BlobStore extends BlobStore {
  /** Releases the client's sockets. */
  close(): void;
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}

/** Where `client` sends a bucket's requests (its URL ending in '/'): the URL it presigns for an object, less the key. */
export async function bucketUrlOf(client: S3Client, bucket: string): Promise<URL> {
  const url = new URL(
    await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: 'k' }), { expiresIn: 60 }),
  );
  return new URL(`${url.origin}${url.pathname.slice(0, -1)}`);
}

export function createS3BlobStore(settings: S3Settings): S3BlobStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Checksums only where S3 requires them: many S3-compatible servers do not know the newer trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // Innermost step: once per HTTP request, each retry included (storage/round-trips.ts).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const tally = roundTrips.s3;
      const operation = context.commandName ?? 'unknown';
      tally.requests += 1;
      tally.roundTrips += 1;
      tally.byOperation.set(operation, (tally.byOperation.get(operation) ?? 0) + 1);
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        tally.ms += performance.now() - started;
      }
    },
    { step: 'deserialize', name: 'placardRoundTrips' },
  );
  const Bucket = settings.bucket;
  let bucketUrl: Promise<URL> | null = null;
  // An object in memory (every rendered file and thumbnail) is stored, and a link signed, by leaner signed requests
  // (s3-signed.ts says why).
  const signed = createS3Signed({
    bucketUrl: () => {
      bucketUrl ??= bucketUrlOf(client, Bucket).catch((error) => {
        bucketUrl = null;
        throw error;
      });
      return bucketUrl;
    },
    region: settings.region,
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    onRequest: (ms) => {
      const tally = roundTrips.s3;
      tally.requests += 1;
      tally.roundTrips += 1;
      tally.byOperation.set('PutObjectCommand', (tally.byOperation.get('PutObjectCommand') ?? 0) + 1);
      tally.ms += ms;
    },
  });

  return {
    async put(key: string, body: Uint8Array | Readable, contentType: string) {
      assertBlobKey(key);
      if (body instanceof Uint8Array) {
        await signed.put(key, body, contentType);
        return { size: body.byteLength };
      }
      // A stream of unknown length: one PUT when small, a multipart upload (aborted on failure) when large.
      let size = 0;
      const counted = new PassThrough();
      counted.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      body.on('error', (error) => counted.destroy(error));
      body.pipe(counted);
      await new Upload({ client, params: { Bucket, Key: key, Body: counted, ContentType: contentType } }).done();
      return { size };
    },

    async get(key: string): Promise<StoredBlob | null> {
      assertBlobKey(key);
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return {
          body: object.Body as Readable,
          size: object.ContentLength ?? 0,
          contentType: object.ContentType ?? 'application/octet-stream',
        };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async exists(key: string) {
      assertBlobKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async delete(key: string) {
      assertBlobKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async signedUrl(key: string, { ttlSeconds, fileName }: SignedUrlOptions) {
      assertBlobKey(key);
      const disposition = contentDisposition(fileName ?? key.split('/').at(-1)!);
      return signed.presignGet(key, { expiresIn: ttlSeconds, contentDisposition: disposition });
    },

    async ping() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },

    close() {
      client.destroy();
      signed.close();
    },
  };
}
