// The validators compiled ahead of time (scripts/compile-validators.ts) are what the schemas compile to today: a schema
// change without `npm run schema:compile` fails here instead of validating documents or flags with the old rules.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { compiledValidators } from '../../scripts/compile-validators.js';

test('the committed validators match the design document and format settings schemas', () => {
  for (const [file, text] of compiledValidators()) {
    assert.ok(
      fs.readFileSync(file, 'utf8') === text,
      `${file} is stale: run \`npm run schema:compile\` and commit the result`,
    );
  }
});
