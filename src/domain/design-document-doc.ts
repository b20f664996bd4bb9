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
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxLength?: number;
  maxItems?: number;
}

/** Fields whose value is an object documented in a section of its own: the field's name → what one is, and where. */
const SECTIONS: Record<string, { noun: string; title: string }> = {
  sizes: { noun: 'size', title: 'Size' },
  slides: { noun: 'slide', title: 'Slide' },
  elements: { noun: 'element', title: 'Fields of every element' },
  animations: { noun: 'animation', title: 'Animation' },
  stroke: { noun: 'stroke', title: 'Stroke' },
};

/** A markdown link to a section of this page (GitHub's anchors: lower case, spaces as hyphens, no backquotes). */
function sectionLink({ noun, title }: { noun: string; title: string }): string {
  return `[${noun}](#${title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')})`;
}

/** The bounds of a number in words: "0 to 300", "up to 2000", "more than 0, up to 300", "at least 1". */
function bounds(s: JsonSchema): string {
  const low =
    s.exclusiveMinimum !== undefined
      ? `more than ${s.exclusiveMinimum}`
      : s.minimum !== undefined
        ? `${s.minimum}`
        : undefined;
  const high =
    s.exclusiveMaximum !== undefined
      ? `less than ${s.exclusiveMaximum}`
      : s.maximum !== undefined
        ? `${s.maximum}`
        : undefined;
  if (low === undefined && high === undefined) return '';
  if (s.minimum !== undefined && s.minimum === s.maximum) return ` (always ${s.minimum})`;
  if (high === undefined) return ` (${s.minimum !== undefined ? `at least ${low}` : low})`;
  if (low === undefined) return ` (${s.exclusiveMaximum !== undefined ? high : `up to ${high}`})`;
  if (s.minimum !== undefined && s.maximum !== undefined) return ` (${low} to ${high})`;
  return ` (${low}, ${s.exclusiveMaximum !== undefined ? high : `up to ${high}`})`;
}

function typeOf(s: JsonSchema, field?: string): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(' \\| ');
  if (s.anyOf) return s.anyOf.map((a) => typeOf(a)).join(' \\| ');
  const section = field === undefined ? undefined : SECTIONS[field];
  if (s.type === 'array') {
    const items = section ? `${sectionLink(section)} objects` : s.items ? typeOf(s.items) : 'any';
    return `array of ${items}${s.maxItems !== undefined ? ` (at most ${s.maxItems})` : ''}`;
  }
  if (s.type === 'object' && section) return `${sectionLink(section)} object`;
  const length = s.type === 'string' && s.maxLength !== undefined ? ` (up to ${s.maxLength} characters)` : '';
  return `${Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'any')}${bounds(s)}${length}`;
}

/** `overrides`: the type column of fields the schema cannot say well on its own (the element's `type`). */
function fieldTable(schema: TSchema, skip: string[] = [], overrides: Record<string, string> = {}): string {
  const s = schema as JsonSchema;
  const rows = ['| field | type | required | default | notes |', '|---|---|---|---|---|'];
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    if (skip.includes(name)) continue;
    const def = prop.default === undefined ? '' : `\`${JSON.stringify(prop.default)}\``;
    const notes = (prop.description ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const type = overrides[name] ?? typeOf(prop, name);
    rows.push(`| \`${name}\` | ${type} | ${s.required?.includes(name) ? 'yes' : ''} | ${def} | ${notes} |`);
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

/**
 * The schema of an object field that elements share (an animation, a stroke), taken from the first element type that
 * has the field: through the registry, the one way domain/ reaches the element schemas.
 */
function nestedSchema(field: string): TSchema {
  for (const kind of ELEMENT_KINDS) {
    const prop = (kind.schema as JsonSchema).properties?.[field];
    if (prop) return (prop.type === 'array' ? prop.items : prop) as TSchema;
  }
  throw new Error(`no element type has a field ${field}`);
}

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
      // Each type's schema has its own literal; the common table lists them all, each linking to its section.
      { type: ELEMENT_KINDS.map((kind) => `[\`"${kind.type}"\`](#${kind.type})`).join(' \\| ') },
    ),
    '',
    '## Animation',
    '',
    "An entry of an element's `animations`: an effect played over `duration` seconds from `start` seconds after its",
    'slide begins. Stills (PNG, JPG, WEBP, PDF) and thumbnails show every element in its final state, once its',
    'animations have ended; GIF, MP4 and HTML5 play them.',
    '',
    fieldTable(nestedSchema('animations')),
    '',
    '## Stroke',
    '',
    'The outline of a `shape` or `button`.',
    '',
    fieldTable(nestedSchema('stroke')),
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
