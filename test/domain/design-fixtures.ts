// Design documents shared by the document, changes and route tests. `springSale` is the example of SPEC §5, verbatim.
import type { DesignDocument } from '../../src/domain/design.schema.js';

export function springSale(): Record<string, unknown> & { sizes: Record<string, unknown>[] } {
  return {
    name: 'Spring sale',
    loop: 1,
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            duration: 5,
            elements: [
              {
                name: 'photo',
                type: 'image',
                x: 0,
                y: 0,
                width: 300,
                height: 140,
                src: 'https://cdn.example.com/p.jpg',
                fit: 'cover',
              },
              {
                name: 'headline',
                type: 'text',
                x: 16,
                y: 150,
                width: 268,
                height: 48,
                text: 'Spring sale',
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: 24,
                color: '#FFFFFF',
                autoFit: 'shrink',
                minFontSize: 12,
                animations: [
                  { effect: 'slide', direction: 'in', from: 'left', start: 0, duration: 0.6, easing: 'easeOut' },
                ],
              },
              {
                name: 'cta',
                type: 'button',
                x: 16,
                y: 206,
                width: 120,
                height: 32,
                label: 'Shop now',
                fill: '#F59E0B',
                color: '#111827',
                fontFamily: 'Inter',
                fontVariant: '600',
                fontSize: 14,
                cornerRadius: 6,
                link: 'https://example.com',
              },
            ],
          },
        ],
      },
    ],
  };
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
