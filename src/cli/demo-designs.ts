// The demo designs of SPEC §12: a single 300x250, a set of four IAB sizes sharing element names, and an animated
// 1080x1920 story. Self-contained (inline SVG, no remote images) so they render on a machine without internet.

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#F59E0B"/>' +
  '<path d="M20 40 L32 18 L44 40 Z" fill="#0F172A"/></svg>';

type Box = { x: number; y: number; width: number; height: number };

function banner(name: string, width: number, height: number, b: { logo: Box; headline: Box; cta: Box }, fontSize = 22) {
  return {
    name,
    width,
    height,
    backgroundColor: '#0F172A',
    slides: [
      {
        duration: 5,
        elements: [
          {
            name: 'backdrop',
            type: 'shape',
            x: 0,
            y: 0,
            width,
            height,
            shape: 'rect',
            fill: 'linear-gradient(135deg, #1E293B 0%, #0F172A 100%)',
          },
          { name: 'logo', type: 'svg', ...b.logo, src: LOGO },
          {
            name: 'headline',
            type: 'text',
            ...b.headline,
            text: 'Spring sale: up to 40% off',
            fontFamily: 'Inter',
            fontVariant: '700',
            fontSize,
            color: '#FFFFFF',
            autoFit: 'shrink',
            minFontSize: 10,
            animations: [
              { effect: 'slide', direction: 'in', from: 'left', start: 0, duration: 0.6, easing: 'easeOut' },
            ],
          },
          {
            name: 'cta',
            type: 'button',
            ...b.cta,
            label: 'Shop now',
            fill: '#F59E0B',
            color: '#111827',
            fontFamily: 'Inter',
            fontVariant: '600',
            fontSize: 14,
            cornerRadius: 6,
            link: 'https://example.com/spring',
          },
        ],
      },
    ],
  };
}

export const DEMO_DESIGNS = [
  {
    name: 'Spring sale — Medium Rectangle',
    document: {
      name: 'Spring sale — Medium Rectangle',
      loop: 1,
      sizes: [
        banner('Medium Rectangle', 300, 250, {
          logo: { x: 16, y: 16, width: 40, height: 40 },
          headline: { x: 16, y: 80, width: 268, height: 90 },
          cta: { x: 16, y: 194, width: 120, height: 36 },
        }),
      ],
    },
  },
  {
    name: 'Spring sale — IAB set',
    document: {
      name: 'Spring sale — IAB set',
      loop: 1,
      sizes: [
        banner('Medium Rectangle', 300, 250, {
          logo: { x: 16, y: 16, width: 40, height: 40 },
          headline: { x: 16, y: 80, width: 268, height: 90 },
          cta: { x: 16, y: 194, width: 120, height: 36 },
        }),
        banner(
          'Leaderboard',
          728,
          90,
          {
            logo: { x: 16, y: 21, width: 48, height: 48 },
            headline: { x: 80, y: 15, width: 470, height: 60 },
            cta: { x: 580, y: 27, width: 128, height: 36 },
          },
          26,
        ),
        banner('Wide Skyscraper', 160, 600, {
          logo: { x: 48, y: 24, width: 64, height: 64 },
          headline: { x: 12, y: 140, width: 136, height: 240 },
          cta: { x: 20, y: 520, width: 120, height: 40 },
        }),
        banner(
          'Half Page',
          300,
          600,
          {
            logo: { x: 118, y: 32, width: 64, height: 64 },
            headline: { x: 24, y: 160, width: 252, height: 220 },
            cta: { x: 75, y: 500, width: 150, height: 44 },
          },
          34,
        ),
      ],
    },
  },
  {
    name: 'Spring sale — Story',
    document: {
      name: 'Spring sale — Story',
      loop: 'infinite',
      sizes: [
        {
          name: 'Story',
          width: 1080,
          height: 1920,
          backgroundColor: '#0F172A',
          slides: [
            {
              duration: 4,
              elements: [
                {
                  name: 'logo',
                  type: 'svg',
                  x: 440,
                  y: 260,
                  width: 200,
                  height: 200,
                  src: LOGO,
                  animations: [{ effect: 'zoom', direction: 'in', start: 0, duration: 0.8, easing: 'easeOut' }],
                },
                {
                  name: 'headline',
                  type: 'text',
                  x: 90,
                  y: 620,
                  width: 900,
                  height: 420,
                  text: 'Spring sale\nup to 40% off',
                  fontFamily: 'Inter',
                  fontVariant: '800',
                  fontSize: 110,
                  color: '#FFFFFF',
                  align: 'center',
                  autoFit: 'shrink',
                  minFontSize: 40,
                  animations: [
                    { effect: 'slide', direction: 'in', from: 'bottom', start: 0.3, duration: 0.7, easing: 'easeOut' },
                  ],
                },
              ],
            },
            {
              duration: 4,
              elements: [
                {
                  name: 'offer',
                  type: 'text',
                  x: 90,
                  y: 700,
                  width: 900,
                  height: 300,
                  text: 'New colours every week',
                  fontFamily: 'Inter',
                  fontVariant: '600',
                  fontSize: 80,
                  color: '#F59E0B',
                  align: 'center',
                  animations: [{ effect: 'fade', direction: 'in', start: 0, duration: 0.5, easing: 'linear' }],
                },
                {
                  name: 'cta',
                  type: 'button',
                  x: 290,
                  y: 1500,
                  width: 500,
                  height: 140,
                  label: 'Shop now',
                  fill: '#F59E0B',
                  color: '#111827',
                  fontFamily: 'Inter',
                  fontVariant: '700',
                  fontSize: 56,
                  cornerRadius: 70,
                  link: 'https://example.com/spring',
                  animations: [{ effect: 'zoom', direction: 'in', start: 0.4, duration: 0.5, easing: 'easeOut' }],
                },
              ],
            },
          ],
        },
      ],
    },
  },
];
