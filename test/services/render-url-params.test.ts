// The query of a render URL as element changes and back (services/render-url-params.ts): the short and the
// name.ATTRIBUTE forms, reserved names, dotted names, and a link made from elementsChanges reading back the same.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DesignDocument } from '../../src/domain/design.schema.js';
import {
  changeParams,
  changesOfParams,
  paramsOfChanges,
  parseQuery,
  settingsOf,
} from '../../src/services/render-url-params.js';

const doc = {
  name: 'D',
  sizes: [
    {
      name: 'S',
      width: 300,
      height: 250,
      backgroundColor: '#000000',
      slides: [
        {
          duration: 5,
          elements: [
            {
              name: 'headline',
              type: 'text',
              x: 0,
              y: 0,
              width: 10,
              height: 10,
              text: 'x',
              fontFamily: 'Inter',
              fontVariant: '400',
              fontSize: 10,
              color: '#FFFFFF',
            },
            { name: 'photo', type: 'image', x: 0, y: 0, width: 10, height: 10, src: 'https://cdn.example.com/a.png' },
            {
              name: 'quality',
              type: 'text',
              x: 0,
              y: 0,
              width: 10,
              height: 10,
              text: 'q',
              fontFamily: 'Inter',
              fontVariant: '400',
              fontSize: 10,
              color: '#FFFFFF',
            },
            {
              name: 'v1.2',
              type: 'text',
              x: 0,
              y: 0,
              width: 10,
              height: 10,
              text: 'v',
              fontFamily: 'Inter',
              fontVariant: '400',
              fontSize: 10,
              color: '#FFFFFF',
            },
            { name: 'box', type: 'shape', shape: 'rect', x: 0, y: 0, width: 10, height: 10, fill: '#FFFFFF' },
          ],
        },
      ],
    },
  ],
} as unknown as DesignDocument;

describe('render URL parameters', () => {
  test('a name alone is the main attribute; name.ATTRIBUTE any other; reserved names are settings', () => {
    const params = parseQuery(
      'headline=Hi+there&photo=https%3A%2F%2Fx.example%2Fp.png&box.BGCOLOR=%23FF0000&scale=2&quality=70&quality.LABEL=Q',
    );
    assert.deepEqual(settingsOf(params), { scale: 2, quality: 70, slide: 0, version: null, exp: null });
    const changes = changesOfParams(doc, changeParams(params));
    assert.deepEqual(
      changes.entries.map((e) => [e.elementName, e.changes[0].attribute, e.changes[0].value]),
      [
        ['box', 'BGCOLOR', '#FF0000'],
        ['headline', 'LABEL', 'Hi there'],
        ['photo', 'SOURCE', 'https://x.example/p.png'],
        ['quality', 'LABEL', 'Q'],
      ],
    );
    assert.deepEqual(changes.sources, [{ param: 'photo', url: 'https://x.example/p.png' }]);
  });

  test('a parameter given twice is refused', () => {
    assert.throws(() => parseQuery('headline=a&headline=b'), /headline \(query\): is given more than once/);
  });

  test('a link made from elementsChanges reads back the same changes, the later of LABEL and TEXTMARKDOWN winning', () => {
    const params = paramsOfChanges(doc, [
      {
        elementName: 'headline',
        changes: [
          { attribute: 'LABEL', value: 'first' },
          { attribute: 'TEXTCOLOR', value: '#FFF' },
        ],
      },
      { elementName: 'headline', changes: [{ attribute: 'TEXTMARKDOWN', value: '**second**' }] },
      { elementName: 'quality', changes: [{ attribute: 'LABEL', value: 'named like a setting' }] },
      { elementName: 'v1.2', changes: [{ attribute: 'LABEL', value: 'dotted' }] },
      { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: 'https://cdn.example.com/b.png' }] },
    ]);
    assert.deepEqual(params, [
      ['headline.TEXTCOLOR', '#FFF'],
      ['headline.TEXTMARKDOWN', '**second**'],
      ['quality.LABEL', 'named like a setting'],
      ['v1.2', 'dotted'],
      ['photo', 'https://cdn.example.com/b.png'],
    ]);
    const back = changesOfParams(doc, changeParams(new Map(params)));
    assert.deepEqual(back.entries.map((e) => `${e.elementName}:${e.changes[0].attribute}`).sort(), [
      'headline:TEXTCOLOR',
      'headline:TEXTMARKDOWN',
      'photo:SOURCE',
      'quality:LABEL',
      'v1.2:LABEL',
    ]);
  });
});
