// Design documents shared by the document, changes and route tests. `springSale` is the example of SPEC §5, verbatim.
import type { DesignDocument } from '../../src/domain/design.schema.js';
import { DESIGN_DOCUMENT_EXAMPLE } from '../../src/domain/design-document-doc.js';

export function springSale(): Record<string, unknown> & { sizes: Record<string, unknown>[] } {
  return structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Record<string, unknown> & { sizes: Record<string, unknown>[] };
}

const box = { x: 0, y: 0, width: 100, height: 50 };

/**
 * A set of two sizes with one element of every type. `headline` is in both sizes, in different fonts (Inter in the
 * first, Lato in the second), so font checks must look at each size; `badge` is only in the second.
 */
export function everyType(): DesignDocument {
  const elements = [
    { ...box, name: 'headline', type: 'text', text: 'Hello', fontFamily: 'Inter', fontVariant: '700' },
    { ...box, name: 'photo', type: 'image', src: 'https://cdn.example.com/p.jpg' },
    { ...box, name: 'panel', type: 'shape', shape: 'rect', fill: '#222222' },
    { ...box, name: 'cta', type: 'button', label: 'Buy', fontFamily: 'Inter', fontVariant: '600' },
    { ...box, name: 'logo', type: 'svg', src: '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="#F00"/></svg>' },
    { ...box, name: 'embed', type: 'code', html: '<div>hi</div>' },
    { ...box, name: 'clip', type: 'video', src: 'https://cdn.example.com/v.mp4' },
  ];
  return {
    version: 1,
    name: 'Every type',
    loop: 1,
    sizes: [
      {
        hash: 'aaaaaaa',
        name: 'Medium Rectangle',
        kind: 'system_design',
        width: 300,
        height: 250,
        measureUnit: 'px',
        backgroundColor: '#FFFFFF',
        slides: [{ duration: 5, elements: structuredClone(elements) }],
      },
      {
        hash: 'bbbbbbb',
        name: 'Leaderboard',
        kind: 'system_design',
        width: 728,
        height: 90,
        measureUnit: 'px',
        backgroundColor: '#FFFFFF',
        slides: [
          { duration: 3, elements: [] },
          {
            duration: 3,
            elements: [
              ...structuredClone(elements).map((e) => (e.name === 'headline' ? { ...e, fontFamily: 'Lato' } : e)),
              { ...box, name: 'badge', type: 'text', text: 'New' },
            ],
          },
        ],
      },
    ],
  } as DesignDocument;
}
