// A real S3-protocol server for the tests: s3rver (an S3 implementation in Node, objects on disk), in the test
// process, one per process, on a free port. Each store under test gets a bucket of its own, emptied and removed after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';

/** s3rver's fixed credentials. */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';

export interface TestBucket {
  settings: S3Settings;
  /** A client of the server, to look at what really is in the bucket. */
  client: S3Client;
  /** Keys of the objects in the bucket. */
  keys(): Promise<string[]>;
  /** Empties and removes the bucket. */
  remove(): Promise<void>;
}

let server: Promise<{ endpoint: string; close(): Promise<void> }> | null = null;
let buckets = 0;
/** Buckets not yet removed: the s3rver of this process stops when the last one goes (it holds the event loop). */
let open = 0;

/** The endpoint of S3_ENDPOINT (with its credentials) when given, else an s3rver started for this process. */
function endpoint(): Promise<{ endpoint: string; accessKeyId: string; secretAccessKey: string }> {
  if (process.env.S3_ENDPOINT) {
    return Promise.resolve({
      endpoint: process.env.S3_ENDPOINT,
      accessKeyId: process.env.S3_ACCESS_KEY_ID ?? ACCESS_KEY_ID,
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? SECRET_ACCESS_KEY,
    });
  }
  server ??= (async () => {
    // In memory where the machine has it: the stand-in for a remote object store writes three files per object, and
    // on this machine's disk (ext4 without a journal) making files costs up to 0.6 ms each after mass removals
    // (bench/scratch.ts), which the scaled-out bench charged to its exports (issue 21, stop 28).
    const directory = fs.mkdtempSync(
      path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'placard-s3rver-'),
    );
    const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
    const { port } = await s3rver.run();
    return {
      endpoint: `http://127.0.0.1:${port}`,
      async close() {
        await s3rver.close();
        fs.rmSync(directory, { recursive: true, force: true });
      },
    };
  })();
  return server.then(({ endpoint }) => ({
    endpoint,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
  }));
}

/** Stops this process's s3rver, if one was started. */
async function stopS3Server(): Promise<void> {
  const started = server;
  server = null;
  await (await started)?.close();
}

export async function createTestBucket(): Promise<TestBucket> {
  const { endpoint: url, accessKeyId, secretAccessKey } = await endpoint();
  const bucket = `placard-t-${process.pid}-${++buckets}-${Math.random().toString(36).slice(2, 8)}`;
  const settings: S3Settings = {
    endpoint: url,
    bucket,
    region: 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: true,
  };
  const client = new S3Client({
    endpoint: url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  open += 1;
  async function keys(): Promise<string[]> {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) found.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found.sort();
  }
  return {
    settings,
    client,
    keys,
    async remove() {
      try {
        const all = await keys();
        for (let i = 0; i < all.length; i += 1000) {
          await client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: all.slice(i, i + 1000).map((Key) => ({ Key })) },
            }),
          );
        }
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      } catch (error) {
        // Clean-up only: a test that passed must not fail because s3rver refused a bulk delete ("internal error"
        // after a batch's 2,000 files); the s3rver of this process and its directory go away below anyway.
        process.stderr.write(`test bucket ${bucket} was not removed: ${(error as Error).message}\n`);
      } finally {
        // Even when removing failed (a file written after its store closed): a running s3rver holds the process, and
        // the file's failure became a 600 s hang of the runner instead of an error (issue 14).
        client.destroy();
        if (--open === 0) await stopS3Server();
      }
    },
  };
}
