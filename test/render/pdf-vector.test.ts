// A PDF export keeps shapes, buttons and text as vectors: only photos and video frames may be images. Read on the raw
// file: Skia writes every image as an XObject of /Subtype /Image, uncompressed in its dictionary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readDocument } from '../../src/domain/design.schema.js';
import { renderPdf } from '../../src/formats/pdf/pdf.js';

const images = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Subtype\s*\/Image\b/g) ?? []).length;

const pdfOf = (elements: unknown[]) =>
  renderPdf(
    readDocument({
      name: 'Vectors',
      sizes: [{ name: 'Banner', width: 300, height: 250, backgroundColor: '#F8FAFC', slides: [{ elements }] }],
    }),
    0,
  );

describe('vector PDF', () => {
  test('shapes (rect, rounded, ellipse, line, gradient, stroke), a button and text contain no raster image', async () => {
    const pdf = await pdfOf([
      { name: 'rect', type: 'shape', x: 10, y: 10, width: 80, height: 50, fill: '#22C55E' },
      { name: 'round', type: 'shape', x: 100, y: 10, width: 80, height: 50, fill: '#0EA5E9', cornerRadius: 12 },
      {
        name: 'ellipse',
        type: 'shape',
        shape: 'ellipse',
        x: 190,
        y: 10,
        width: 100,
        height: 50,
        fill: 'linear-gradient(90deg, #F59E0B 0%, #EF4444 100%)',
        stroke: { color: '#111827', width: 3 },
      },
      {
        name: 'line',
        type: 'shape',
        shape: 'line',
        x: 10,
        y: 80,
        width: 280,
        height: 0,
        stroke: { color: '#111827', width: 2 },
      },
      {
        name: 'copy',
        type: 'text',
        x: 10,
        y: 100,
        width: 280,
        height: 40,
        text: 'Spring sale — floor offers',
        fontSize: 20,
      },
      { name: 'cta', type: 'button', x: 10, y: 180, width: 120, height: 36, label: 'Shop now', fill: '#F59E0B' },
    ]);
    assert.ok(pdf.toString('latin1').includes('/Type /Page'), 'a PDF with a page');
    assert.equal(images(pdf), 0, 'no image XObject');
  });

  test('an SVG element stays vector', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="40" fill="#E11D48"/></svg>';
    const pdf = await pdfOf([{ name: 'logo', type: 'svg', x: 75, y: 50, width: 150, height: 150, src: svg }]);
    assert.equal(images(pdf), 0, 'no image XObject');
  });
});
