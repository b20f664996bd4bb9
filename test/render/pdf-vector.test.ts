// A PDF export keeps shapes, buttons and text as vectors: only photos and video frames may be images. Read on the raw
// file: Skia writes every image as an XObject of /Subtype /Image, uncompressed in its dictionary.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { readDocument } from '../../src/domain/design.schema.js';
import { renderPdf } from '../../src/formats/pdf/pdf.js';
import { startRenderMedia } from './render-media.js';

const images = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Subtype\s*\/Image\b/g) ?? []).length;

/** The page content streams, inflated (Skia deflates every stream). */
function contents(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const out: string[] = [];
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = match.index! + match[0].length;
    const end = text.indexOf('endstream', start);
    try {
      out.push(inflateSync(pdf.subarray(start, end)).toString('latin1'));
    } catch {
      // Not deflated (or not a content stream): not drawing operators.
    }
  }
  return out.join('\n');
}

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
    // The circle is there as a path: Bézier curves (`c`) filled with #E11D48 (0.882 0.114 0.282 rg).
    const ops = contents(pdf);
    assert.match(ops, /0?\.88\d* 0?\.11\d* 0?\.28\d* rg/, 'the circle fill colour');
    assert.ok((ops.match(/ c\n/g) ?? []).length >= 4, 'the circle as curves');
  });

  test('an SVG element with a gradient, a path and a recoloured fill stays vector, fitted into its box', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><defs><linearGradient id="g"><stop offset="0" stop-color="#F59E0B"/><stop offset="1" stop-color="#EF4444"/></linearGradient></defs><rect width="200" height="100" rx="10" fill="url(#g)"/><path d="M20 80 L100 20 L180 80 Z" fill="#111111"/></svg>';
    const pdf = await pdfOf([
      {
        name: 'logo',
        type: 'svg',
        x: 50,
        y: 25,
        width: 200,
        height: 200,
        src: svg,
        colors: ['#F59E0B', '#EF4444', '#2563EB'],
      },
    ]);
    assert.equal(images(pdf), 0, 'no image XObject');
    const ops = contents(pdf);
    assert.match(ops, /0?\.14\d* 0?\.38\d* 0?\.92\d* rg/, 'the triangle in its SVGCOLORS colour (#2563EB)');
    assert.doesNotMatch(ops, /0?\.066\d* 0?\.066\d* 0?\.066\d* rg/, 'not in its original colour');
    assert.match(pdf.toString('latin1'), /\/ShadingType\s+2/, 'the gradient as an axial shading');
    // Contain-fitted as a browser fits it: 200×100 into 200×200 is scale 1, centred 50 px down; on the page (0.75 pt
    // per px, the box at 50, 25) that is a 0.75 scale moved to (37.5, 56.25) plus Skia's half-point flip offset.
    assert.match(ops, /^\.75 0 0 \.75 37\.5 56\.(?:25|75) cm$/m, 'drawn fitted in its box');
  });

  test('an image element whose source is an SVG file stays vector, cropped by cover and its corner radius', async () => {
    const media = await startRenderMedia();
    let pdf: Buffer;
    try {
      const document = readDocument({
        name: 'Vectors',
        sizes: [
          {
            name: 'Banner',
            width: 300,
            height: 250,
            slides: [
              {
                elements: [
                  {
                    name: 'logo',
                    type: 'image',
                    x: 50,
                    y: 50,
                    width: 100,
                    height: 100,
                    src: `${media.origin}/logo.svg`,
                    fit: 'cover',
                    cornerRadius: 16,
                  },
                ],
              },
            ],
          },
        ],
      });
      pdf = await renderPdf(document, 0, { fetcher: media.fetcher });
    } finally {
      await media.close();
    }
    assert.equal(images(pdf), 0, 'no image XObject');
    const ops = contents(pdf);
    // render-media's LOGO_SVG: an amber disc (#F59E0B) on a blue field (#1D4ED8).
    assert.match(ops, /0?\.96\d* 0?\.61\d* 0?\.04\d* rg/, 'the disc is drawn as a path');
    assert.match(ops, /0?\.11\d* 0?\.30\d* 0?\.84\d* rg/, 'the field is drawn as a path');
    assert.match(ops, /W\s+n/, 'clipped to the box');
  });
});
