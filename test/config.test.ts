// The scaled-out settings of config.ts: read, defaulted and refused with a message naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

const S3 = {
  S3_ENDPOINT: 'http://127.0.0.1:9000/',
  S3_BUCKET: 'files',
  S3_ACCESS_KEY_ID: 'id',
  S3_SECRET_ACCESS_KEY: 'secret',
};

test('no Redis, no S3, role all: the embedded shape', () => {
  const config = loadConfig({});
  assert.deepEqual(
    [config.redisUrl, config.s3, config.role, config.redisPrefix, config.stopGraceSeconds, config.jobLeaseSeconds],
    [null, null, 'all', 'placard', 25, 30],
  );
});

test('S3 settings are read with their defaults; the endpoint loses its trailing slash', () => {
  assert.deepEqual(loadConfig(S3).s3, {
    endpoint: 'http://127.0.0.1:9000',
    bucket: 'files',
    region: 'us-east-1',
    accessKeyId: 'id',
    secretAccessKey: 'secret',
    forcePathStyle: true,
  });
  assert.equal(loadConfig({ ...S3, S3_FORCE_PATH_STYLE: 'false', S3_REGION: 'eu-west-1' }).s3?.region, 'eu-west-1');
});

test('S3_ENDPOINT without bucket or keys, or not a URL, is refused', () => {
  assert.throws(() => loadConfig({ S3_ENDPOINT: 'http://s3' }), /S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
  assert.throws(() => loadConfig({ ...S3, S3_ENDPOINT: 's3.local' }), /S3_ENDPOINT must be an http/);
});

test('REDIS_URL must be redis:// or rediss://; the prefix is a plain name', () => {
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380');
  assert.throws(() => loadConfig({ REDIS_URL: 'localhost:6379' }), ConfigError);
  assert.throws(() => loadConfig({ PLACARD_REDIS_PREFIX: 'a b' }), /PLACARD_REDIS_PREFIX/);
});

test('PLACARD_ROLE api or worker needs PostgreSQL; an unknown role is refused', () => {
  assert.throws(() => loadConfig({ PLACARD_ROLE: 'worker' }), /needs DATABASE_URL/);
  assert.equal(loadConfig({ PLACARD_ROLE: 'api', DATABASE_URL: 'postgres://db/p' }).role, 'api');
  assert.throws(() => loadConfig({ PLACARD_ROLE: 'render' }), /PLACARD_ROLE must be all, api or worker/);
});

test('PLACARD_ALLOWED_PRIVATE_HOSTS is read as a list and a bad entry stops the start, naming it', () => {
  assert.deepEqual(loadConfig({}).allowedPrivateHosts, []);
  assert.deepEqual(loadConfig({ PLACARD_ALLOWED_PRIVATE_HOSTS: 'assets.corp, 10.20.0.0/16' }).allowedPrivateHosts, [
    'assets.corp',
    '10.20.0.0/16',
  ]);
  assert.throws(
    () => loadConfig({ PLACARD_ALLOWED_PRIVATE_HOSTS: 'assets.corp,10.0.0.0/40' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /'10\.0\.0\.0\/40' is not a valid CIDR range; list host names/.test(error.message),
  );
});
