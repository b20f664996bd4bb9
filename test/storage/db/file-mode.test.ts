// placard.sqlite holds webhook signing secrets (issue 15): it is created readable by the service's user only (0600),
// like the server secret, whatever the umask; an existing world-readable file is narrowed when opened.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../src/storage/db/database.js';

test('placard.sqlite and its WAL are 0600, new or existing', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-mode-'));
  const umask = process.umask(0o022);
  t.after(() => {
    process.umask(umask);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const file = path.join(dataDir, 'placard.sqlite');
  const db = openDatabase({ databaseUrl: null, dataDir });
  try {
    await db.ping();
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const wal = `${file}-wal`;
    if (fs.existsSync(wal)) assert.equal(fs.statSync(wal).mode & 0o777, 0o600);
  } finally {
    await db.close();
  }
  fs.chmodSync(file, 0o644);
  const again = openDatabase({ databaseUrl: null, dataDir });
  try {
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  } finally {
    await again.close();
  }
});
