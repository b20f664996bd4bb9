// SVGCOLORS: distinct colours in order of first appearance, found only where SVG paints with them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recolorSvg, svgColors } from '../../../src/render/media/svg-colors.js';
import { withIntrinsicSize } from '../../../src/render/media/svg-size.js';

const LOGO =
  '<svg viewBox="0 0 10 10"><style>.a { fill: #0EA5E9; stroke: red }</style>' +
  '<linearGradient id="abc"><stop stop-color="#FFF"/><stop stop-color="rgba(0, 0, 0, 0.5)"/></linearGradient>' +
  '<rect class="a" fill="url(#abc)"/><use href="#abc"/><circle fill="#ffffff" stroke="#FF0000"/></svg>';

describe('svgColors', () => {
  test('lists distinct RGB colours in order of first appearance, ignoring ids that look like hex', () => {
    assert.deepEqual(svgColors(LOGO), ['#0ea5e9', '#ff0000', '#ffffff', '#000000']);
  });
});

describe('recolorSvg', () => {
  test('replaces the i-th distinct colour by the i-th given one, everywhere it occurs', () => {
    const out = recolorSvg(LOGO, ['#111111', '#222', '#333333']);
    assert.deepEqual(svgColors(out), ['#111111', '#222222', '#333333', '#000000']);
    assert.match(out, /fill: #111111; stroke: #222222 }/);
    assert.match(out, /<circle fill="#333333" stroke="#222222"\/>/);
    // ids are untouched
    assert.match(out, /fill="url\(#abc\)"/);
    assert.match(out, /href="#abc"/);
  });

  test('a replaced colour keeps the alpha of each occurrence', () => {
    const out = recolorSvg(LOGO, ['#0ea5e9', '#ff0000', '#ffffff', '#FF8800']);
    assert.match(out, /stop-color="rgba\(255,136,0,0.5\)"/);
  });

  test('no colours given leaves the markup as it is', () => {
    assert.equal(recolorSvg(LOGO, []), LOGO);
  });
});

describe('withIntrinsicSize', () => {
  test('a root with only a viewBox gets its width and height', () => {
    assert.equal(
      withIntrinsicSize('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 12"><g/></svg>'),
      '<?xml version="1.0"?><svg width="24" height="12" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 12"><g/></svg>',
    );
  });

  test('relative sizes are replaced; absolute ones and roots without a viewBox are left alone', () => {
    assert.equal(
      withIntrinsicSize('<svg width="100%" height="100%" viewBox="0,0,5,5"></svg>'),
      '<svg width="5" height="5" viewBox="0,0,5,5"></svg>',
    );
    const sized = '<svg width="120" height="60px" viewBox="0 0 10 10"></svg>';
    assert.equal(withIntrinsicSize(sized), sized);
    assert.equal(withIntrinsicSize('<svg><rect/></svg>'), '<svg><rect/></svg>');
  });
});
