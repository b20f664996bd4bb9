import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ERROR_CATALOGUE, renderErrorsMarkdown } from '../src/errors.js';

test('docs/errors.md is the catalogue of src/errors.ts (run `npm run docs` when this fails)', () => {
  assert.equal(fs.readFileSync('docs/errors.md', 'utf8'), renderErrorsMarkdown());
});

test('every error code is UPPER_SNAKE with a 4xx or 5xx status', () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    assert.match(code, /^[A-Z][A-Z0-9_]+$/);
    assert.ok(entry.status >= 400 && entry.status < 600, code);
    assert.ok(entry.description.length > 10, code);
  }
});
