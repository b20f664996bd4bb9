// The S3 BlobStore against a real S3-protocol server (s3rver, started by the test, or S3_ENDPOINT when set): the
// BlobStore contract, then what only S3 shows — objects really in the bucket, presigned links that download with the
// file name, and a readiness ping that fails for a bucket that does not exist.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createS3BlobStore, type S3BlobStore } from '../../../src/storage/blobs/s3.js';
import { blobStoreContract } from '../../contracts/blob-store.js';
import { createTestBucket, type TestBucket } from '../../helpers/s3-server.js';

const opened: { store: S3BlobStore; bucket: TestBucket }[] = [];
async function open() {
  const bucket = await createTestBucket();
  const store = createS3BlobStore(bucket.settings);
  opened.push({ store, bucket });
  return { store, bucket };
}
after(async () => {
  for (const { store, bucket } of opened.splice(0)) {
    store.close();
    await bucket.remove();
  }
});

blobStoreContract('S3 (s3rver)', async () => {
  const { store } = await open();
  return { store, close: async () => {} };
});

describe('S3 blob store', () => {
  test('objects land in the bucket under their key; delete removes them', async () => {
    const { store, bucket } = await open();
    await store.put('exports/e1/a.png', Buffer.from('a'), 'image/png');
    await store.put('thumbnails/t/b.png', Buffer.from('b'), 'image/png');
    assert.deepEqual(await bucket.keys(), ['exports/e1/a.png', 'thumbnails/t/b.png']);
    await store.delete('exports/e1/a.png');
    assert.deepEqual(await bucket.keys(), ['thumbnails/t/b.png']);
  });

  test('a presigned link downloads the object from S3 with its type and the file name asked for', async () => {
    const { store, bucket } = await open();
    await store.put('exports/e2/c.png', Buffer.from('png bytes'), 'image/png');
    const url = await store.signedUrl('exports/e2/c.png', { ttlSeconds: 600, fileName: 'Spring sale – 300x250.png' });
    assert.ok(url.startsWith(`${bucket.settings.endpoint}/${bucket.settings.bucket}/exports/e2/c.png?`), url);
    assert.match(url, /X-Amz-Expires=600/);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(
      res.headers.get('content-disposition'),
      `attachment; filename="Spring sale _ 300x250.png"; filename*=UTF-8''Spring%20sale%20%E2%80%93%20300x250.png`,
    );
    assert.equal(await res.text(), 'png bytes');
  });

  test('a large stream is stored whole (a multipart upload)', async () => {
    const { store } = await open();
    const { Readable } = await import('node:stream');
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const size = 12 * chunk.length;
    const stored = await store.put(
      'exports/e3/big.zip',
      Readable.from(Array.from({ length: 12 }, () => chunk)),
      'application/zip',
    );
    assert.equal(stored.size, size);
    const blob = await store.get('exports/e3/big.zip');
    let read = 0;
    for await (const part of blob!.body) read += (part as Buffer).length;
    assert.deepEqual([blob!.size, read, blob!.contentType], [size, size, 'application/zip']);
  });

  test('ping answers for the bucket, and fails for a bucket that does not exist', async () => {
    const { store, bucket } = await open();
    await store.ping();
    const missing = createS3BlobStore({ ...bucket.settings, bucket: 'placard-no-such-bucket' });
    await assert.rejects(missing.ping());
    missing.close();
  });
});
