// The client's committed types (packages/client/src/openapi.ts) are those of the OpenAPI document the service serves
// now: a route added or changed without `npm run client:generate` fails here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fetchOpenApiDocument, OPENAPI_TYPES, renderClientTypes } from '../../scripts/client-openapi.js';

// Built once: building the app takes a second.
const served = fetchOpenApiDocument();

test('the committed client types match the served OpenAPI document', async () => {
  const expected = await renderClientTypes(await served);
  const committed = fs.readFileSync(OPENAPI_TYPES, 'utf8');
  if (committed !== expected) {
    const a = committed.split('\n');
    const b = expected.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    assert.fail(
      `packages/client/src/openapi.ts is out of date (first difference at line ${line + 1}: ` +
        `${JSON.stringify(a[line])} vs ${JSON.stringify(b[line])}); run \`npm run client:generate\` and commit it`,
    );
  }
});

test('every /v1 operation of the document is a typed path of the client', async () => {
  const doc = (await served) as { paths: Record<string, Record<string, unknown>> };
  const committed = fs.readFileSync(OPENAPI_TYPES, 'utf8');
  const missing = Object.keys(doc.paths)
    .filter((p) => p.startsWith('/v1/'))
    .filter((p) => !committed.includes(`    ${JSON.stringify(p)}: {`));
  assert.deepEqual(missing, []);
});
