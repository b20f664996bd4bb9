// The registry is the one place that knows every element type: each kind is complete, the change attributes follow
// the SPEC §5 table, and the layer schema checks an element against its own type only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { htmlFragmentProblem } from '../../src/elements/code/html-fragment.js';
import { CHANGE_ATTRIBUTES } from '../../src/elements/element-kind.js';
import { ELEMENT_KINDS, ELEMENT_TYPES, isLayerType, kindOf, LayerSchema } from '../../src/elements/registry.js';
import { ELEMENT_CHANGE_ATTRIBUTES, LAYER_TYPES } from '../../src/http/schemas/templates.js';

/** SPEC §5 "Element changes": attribute → the element types that accept it. */
const SPEC_TABLE: Record<string, string[]> = {
  LABEL: ['text', 'button'],
  TEXTMARKDOWN: ['text'],
  SOURCE: ['image', 'video', 'audio'], // audio: the motion extension (docs/decisions.md)
  CODE: ['code'],
  VISIBILITY: ['text', 'image', 'shape', 'button', 'svg', 'code', 'video', 'audio'],
  FONTVARIANT: ['text', 'button'],
  FONTFAMILY: ['text', 'button'],
  TEXTCOLOR: ['text', 'button'],
  BGCOLOR: ['button', 'shape'],
  SVGCOLORS: ['svg'],
  LINEHEIGHT: ['text'],
  LETTERSPACING: ['text', 'button'],
};

const box = { x: 0, y: 0, width: 10, height: 10 };

describe('element registry', () => {
  test('has one kind per layer type of the HTTP contract, in the same order', () => {
    assert.deepEqual(ELEMENT_TYPES, [...LAYER_TYPES]);
    for (const type of LAYER_TYPES) {
      assert.equal(kindOf(type).type, type);
      assert.equal(isLayerType(type), true);
    }
    assert.equal(isLayerType('picture'), false);
  });

  test('kindOf an unknown type throws, naming the known ones', () => {
    assert.throws(() => kindOf('picture'), /unknown element type 'picture'; known types: text, image/);
  });

  test('the change attributes are the HTTP schema’s', () => {
    assert.deepEqual([...CHANGE_ATTRIBUTES].sort(), [...ELEMENT_CHANGE_ATTRIBUTES].sort());
  });

  test('each kind accepts exactly the attributes of the SPEC §5 table', () => {
    for (const kind of ELEMENT_KINDS) {
      const expected = Object.entries(SPEC_TABLE)
        .filter(([, types]) => types.includes(kind.type))
        .map(([attribute]) => attribute)
        .sort();
      assert.deepEqual([...kind.acceptedChanges].sort(), expected, kind.type);
    }
  });

  test('editableValue shows the text, label, source or embed code; shapes have none', () => {
    const values = {
      text: kindOf('text').editableValue({ ...box, name: 't', type: 'text', text: 'Hello' }),
      button: kindOf('button').editableValue({ ...box, name: 'b', type: 'button', label: 'Buy' }),
      image: kindOf('image').editableValue({ ...box, name: 'i', type: 'image', src: 'https://x.test/a.png' }),
      video: kindOf('video').editableValue({ ...box, name: 'v', type: 'video', src: 'https://x.test/a.mp4' }),
      svg: kindOf('svg').editableValue({ ...box, name: 's', type: 'svg', src: '<svg/>' }),
      code: kindOf('code').editableValue({ ...box, name: 'c', type: 'code', html: '<b>x</b>' }),
      shape: kindOf('shape').editableValue({ ...box, name: 'r', type: 'shape' }),
    };
    assert.deepEqual(values, {
      text: 'Hello',
      button: 'Buy',
      image: 'https://x.test/a.png',
      video: 'https://x.test/a.mp4',
      svg: '<svg/>',
      code: '<b>x</b>',
      shape: null,
    });
  });

  test('text and button draw text and report their font, with the defaults when unset', () => {
    assert.deepEqual(kindOf('text').fontOf?.({ ...box, name: 't', type: 'text' }), {
      fontFamily: 'Inter',
      fontVariant: '400',
    });
    assert.deepEqual(
      kindOf('button').fontOf?.({ ...box, name: 'b', type: 'button', fontFamily: 'Lato', fontVariant: '700italic' }),
      { fontFamily: 'Lato', fontVariant: '700italic' },
    );
    for (const type of ['image', 'shape', 'svg', 'code', 'video'] as const)
      assert.equal(kindOf(type).fontOf, undefined);
  });

  test('applyChange returns a new element and leaves the old one alone', () => {
    const text = { ...box, name: 't', type: 'text' as const, text: 'a', markdown: true };
    const relabelled = kindOf('text').applyChange(text, { attribute: 'LABEL', value: 'b *c*' });
    assert.deepEqual(relabelled, { ...text, text: 'b *c*', markdown: false });
    assert.equal(text.text, 'a');
    const marked = kindOf('text').applyChange(text, { attribute: 'TEXTMARKDOWN', value: '**d**' });
    assert.equal(marked.markdown, true);
    const button = { ...box, name: 'b', type: 'button' as const, fill: '#000' };
    assert.equal(kindOf('button').applyChange(button, { attribute: 'BGCOLOR', value: '#FFF' }).fill, '#FFF');
    assert.equal(
      kindOf('shape').applyChange({ ...box, name: 's', type: 'shape' }, { attribute: 'BGCOLOR', value: '#ABC' }).fill,
      '#ABC',
    );
    const svg = kindOf('svg').applyChange(
      { ...box, name: 's', type: 'svg', src: '<svg/>' },
      { attribute: 'SVGCOLORS', value: ['#FFF'] },
    );
    assert.deepEqual(svg.colors, ['#FFF']);
  });

  test('a kind asked for a change it does not accept throws: that is a bug in the caller', () => {
    assert.throws(
      () =>
        kindOf('image').applyChange(
          { ...box, name: 'i', type: 'image', src: 'https://x.test/a.png' },
          { attribute: 'TEXTCOLOR', value: '#FFF' },
        ),
      /image elements do not accept TEXTCOLOR/,
    );
  });
});

describe('layer schema', () => {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
  const check = ajv.compile(LayerSchema);

  test('checks an element against its own type only, and fills that type’s defaults', () => {
    const text: Record<string, unknown> = { ...box, name: 't', type: 'text', color: 'red' };
    assert.equal(check(text), false);
    assert.deepEqual(
      check.errors?.filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath} ${e.keyword}`),
      ['/color pattern'],
    );
    const image: Record<string, unknown> = { ...box, name: 'i', type: 'image', src: 'https://x.test/a.png' };
    assert.equal(check(image), true);
    assert.equal(image.fit, 'cover');
    assert.equal(image.visible, true);
    assert.equal(image.text, undefined);
  });

  test('refuses fields of another type', () => {
    assert.equal(check({ ...box, name: 'i', type: 'image', src: 'https://x.test/a.png', text: 'hi' }), false);
    assert.deepEqual(
      check.errors?.filter((e) => e.keyword === 'additionalProperties').map((e) => e.params),
      [{ additionalProperty: 'text' }],
    );
  });

  test('an unknown or missing type is one error naming the types', () => {
    assert.equal(check({ ...box, name: 'x', type: 'picture' }), false);
    assert.deepEqual(
      check.errors?.map((e) => `${e.instancePath} ${e.keyword}`),
      ['/type enum'],
    );
    assert.equal(check({ ...box, name: 'x' }), false);
    assert.deepEqual(
      check.errors?.map((e) => e.keyword),
      ['required'],
    );
  });
});

describe('CODE fragments', () => {
  test('accepts balanced fragments with void, self-closing, raw-text elements and comments', () => {
    for (const html of [
      '',
      'plain text with a < b',
      '<div class="a" data-x=\'>\'><img src="x.png"><br/><span>hi</span></div>',
      '<!-- <div> --><script>if (a < b && "</div>") {}</script><style>p>a{}</style>',
      '<svg><path d="M0 0"/></svg>',
      '<!DOCTYPE html><P>caps</p>',
    ]) {
      assert.equal(htmlFragmentProblem(html), null, html);
    }
  });

  test('names the first imbalance and its line', () => {
    assert.equal(
      htmlFragmentProblem('<div>\n<span></div>'),
      '</div> at line 2 does not close <span> (opened at line 2)',
    );
    assert.equal(htmlFragmentProblem('<div>'), '<div> opened at line 1 is never closed');
    assert.equal(htmlFragmentProblem('</p>'), '</p> at line 1 closes nothing');
    assert.equal(htmlFragmentProblem('a\n<!-- x'), 'the comment at line 2 is never closed with -->');
    assert.equal(htmlFragmentProblem('<script>x'), '<script> at line 1 is never closed');
    assert.equal(htmlFragmentProblem('<div class="x>'), 'the tag at line 1 is malformed: "<div class=\\"x>"');
  });
});
