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

// Issue 15: the generated reference listed `type` as only "text", printed ranges as "number (…..300)", cited a SPEC
// that is not in the repository, and left `animations` and `stroke` undocumented.
test('the common fields list every element type, each linking to its section', () => {
  const markdown = renderDesignDocumentMarkdown();
  const row = markdown.split('\n').find((line) => line.startsWith('| `type` |'));
  assert.ok(row);
  for (const kind of ELEMENT_KINDS) assert.ok(row.includes(`[\`"${kind.type}"\`](#${kind.type})`), kind.type);
});

test('ranges read as words, and nothing cites a document outside the repository', () => {
  const markdown = renderDesignDocumentMarkdown();
  assert.doesNotMatch(markdown, /…|\(\S*\.\.\S*\)/, 'no "(…..300)" or "(0..1)" ranges');
  assert.match(markdown, /\| `duration` \| number \(more than 0, up to 300\) \|/);
  assert.match(markdown, /\| `opacity` \| number \(0 to 1\) \|/);
  assert.match(markdown, /\| `fontSize` \| number \(more than 0, up to 2000\) \|/);
  assert.doesNotMatch(markdown, /SPEC/);
});

test('animations and stroke have sections of their own, and every link of the page reaches a section', () => {
  const markdown = renderDesignDocumentMarkdown();
  assert.match(markdown, /\| `animations` \| array of \[animation\]\(#animation\) objects \(at most 20\) \|/);
  assert.match(markdown, /\| `stroke` \| \[stroke\]\(#stroke\) object \|/);
  const section = (title: string) => markdown.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';
  for (const field of ['effect', 'direction', 'from', 'start', 'duration', 'easing']) {
    assert.match(section('Animation'), new RegExp(`\\| \`${field}\` \\|`), field);
  }
  for (const field of ['color', 'width']) assert.match(section('Stroke'), new RegExp(`\\| \`${field}\` \\|`), field);
  const anchors = new Set(
    [...markdown.matchAll(/^## (.+)$/gm)].map((m) =>
      m[1]
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const [, anchor] of markdown.matchAll(/\]\(#([^)]+)\)/g)) assert.ok(anchors.has(anchor), anchor);
});
