// The shared parse of stored documents: once per text, frozen throughout, and changes still apply to a copy.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyChanges } from '../../src/domain/changes.js';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { createParsedDocuments } from '../../src/domain/parsed-documents.js';
import { catalogueFonts } from '../../src/render/text/fonts.js';
import { everyType } from './design-fixtures.js';

describe('createParsedDocuments', () => {
  test('parses a text once and hands out the same frozen value', () => {
    let parses = 0;
    const documents = createParsedDocuments((text) => {
      parses += 1;
      return JSON.parse(text) as DesignDocument;
    });
    const text = JSON.stringify(everyType());
    const first = documents.get(text);
    // An equal string that is another object still hits: the key is the text, not its identity.
    const second = documents.get(`${text} `.trimEnd());
    assert.equal(parses, 1);
    assert.equal(first, second);
    assert.ok(Object.isFrozen(first));
    assert.ok(Object.isFrozen(first.sizes));
    assert.ok(Object.isFrozen(first.sizes[0].slides[0].elements[0]));
    assert.throws(() => {
      (first.sizes[0].slides[0].elements[0] as { name: string }).name = 'changed';
    }, TypeError);
  });

  test('changes apply to a copy and leave the shared document as it was', () => {
    const documents = createParsedDocuments((text) => JSON.parse(text) as DesignDocument);
    const text = JSON.stringify(everyType());
    const shared = documents.get(text);
    const changed = applyChanges(
      shared,
      [{ elementName: 'headline', changes: [{ attribute: 'TEXTMARKDOWN', value: 'Changed' }] }],
      undefined,
      catalogueFonts,
    );
    const headline = (doc: DesignDocument) =>
      doc.sizes[0].slides[0].elements.find((e) => e.name === 'headline') as { text: string };
    assert.equal(headline(changed).text, 'Changed');
    assert.equal(headline(shared).text, 'Hello');
    assert.deepEqual(shared, JSON.parse(text));
  });

  test('keeps at most `max` texts', () => {
    let parses = 0;
    const documents = createParsedDocuments(
      (text) => {
        parses += 1;
        return { text };
      },
      { max: 2 },
    );
    for (const text of ['"a"', '"b"', '"c"', '"a"']) documents.get(text);
    assert.equal(parses, 4);
  });
});
