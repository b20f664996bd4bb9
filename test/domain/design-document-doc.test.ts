import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { readDocument } from '../../src/domain/design.schema.js';
import { DESIGN_DOCUMENT_EXAMPLE, renderDesignDocumentMarkdown } from '../../src/domain/design-document-doc.js';
import { ELEMENT_KINDS } from '../../src/elements/registry.js';

test('docs/design-document.md is generated from the schemas (run `npm run docs` when this fails)', () => {
  assert.equal(fs.readFileSync('docs/design-document.md', 'utf8'), renderDesignDocumentMarkdown());
});

test('the documented example (SPEC §5) is a valid document', () => {
  const doc = readDocument(DESIGN_DOCUMENT_EXAMPLE);
  assert.equal(doc.sizes[0].slides[0].elements.length, 3);
});

test('every element type has a section listing the change attributes it accepts', () => {
  const markdown = renderDesignDocumentMarkdown();
  for (const kind of ELEMENT_KINDS) {
    assert.match(markdown, new RegExp(`## \`${kind.type}\``));
    for (const attribute of kind.acceptedChanges) assert.ok(markdown.includes(`\`${attribute}\``), attribute);
  }
});
