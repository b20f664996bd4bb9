// Renders docs/design-document.md from the schemas themselves (document, size, slide, every element kind), so the
// reference cannot drift from what the API validates. `npm run docs` writes it; a test compares.
import type { TSchema } from 'typebox';
import { ELEMENT_KINDS } from '../elements/registry.js';
import { DesignDocument, DesignSizeSchema, Slide } from './design.schema.js';

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(' \\| ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  if (s.type === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  const bounds =
    s.minimum !== undefined || s.maximum !== undefined ? ` (${s.minimum ?? '…'}..${s.maximum ?? '…'})` : '';
  return `${Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'any')}${bounds}`;
}

function fieldTable(schema: TSchema, skip: string[] = []): string {
  const s = schema as JsonSchema;
  const rows = ['| field | type | required | default | notes |', '|---|---|---|---|---|'];
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    if (skip.includes(name)) continue;
    const def = prop.default === undefined ? '' : `\`${JSON.stringify(prop.default)}\``;
    const notes = (prop.description ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
    rows.push(`| \`${name}\` | ${typeOf(prop)} | ${s.required?.includes(name) ? 'yes' : ''} | ${def} | ${notes} |`);
  }
  return rows.join('\n');
}

const EXAMPLE = {
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

export { EXAMPLE as DESIGN_DOCUMENT_EXAMPLE };

export function renderDesignDocumentMarkdown(): string {
  const common = ['name', 'type', 'x', 'y', 'width', 'height', 'rotation', 'opacity', 'visible', 'link', 'animations'];
  const parts = [
    '# The design document',
    '',
    '<!-- Generated from the schemas in src/domain/design.schema.ts and src/elements/*/schema.ts by `npm run docs`. -->',
    '',
    'A design (or design set) is one JSON document: sizes, each with slides, each with elements (layers). It is',
    'imported with `POST /v1/templates/import`, read with `GET /v1/templates/{hash}/document` and replaced with',
    '`PUT /v1/templates/{hash}/document`. The JSON Schema is served at `GET /v1/schemas/design-document.json`.',
    'Size `hash` and `kind` are filled in by the service; element `name`s are the keys of element changes and must be',
    'unique within a size (the same name across the sizes of a set is the same element, of the same type).',
    '',
    '## Example',
    '',
    '```json',
    JSON.stringify(EXAMPLE, null, 2),
    '```',
    '',
    '## Document',
    '',
    fieldTable(DesignDocument),
    '',
    '## Size',
    '',
    fieldTable(DesignSizeSchema),
    '',
    '## Slide',
    '',
    fieldTable(Slide),
    '',
    '## Fields of every element',
    '',
    fieldTable(
      ELEMENT_KINDS[0].schema,
      Object.keys((ELEMENT_KINDS[0].schema as JsonSchema).properties ?? {}).filter((k) => !common.includes(k)),
    ),
  ];
  for (const kind of ELEMENT_KINDS) {
    parts.push(
      '',
      `## \`${kind.type}\``,
      '',
      `Change attributes it accepts: ${kind.acceptedChanges.map((a) => `\`${a}\``).join(', ')}.`,
      '',
      fieldTable(kind.schema, common),
    );
  }
  return `${parts.join('\n')}\n`;
}
