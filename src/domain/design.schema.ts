// The design document (SPEC §5): one JSON document per design, a design set being one document with several sizes.
// The TypeBox schema below validates import bodies, is shown in the OpenAPI document and is published at
// GET /v1/schemas/design-document.json. What JSON Schema cannot say (names unique within a size, one type per name
// across sizes, distinct size hashes) is checked by `semanticProblems`; `validateDocument` runs both.
import { randomInt } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { type Static, Type } from 'typebox';
import { Colour } from '../elements/common.js';
import { type Layer, LayerSchema } from '../elements/registry.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { CURRENT_DOCUMENT_VERSION, migrateDocument } from './design.migrate.js';
import { validate as generatedCheck } from './design.validate.generated.js';
import { describeValidation, pointerToPath } from './json-pointer.js';
import { sizeKind } from './standard-sizes.js';

/** SPEC §9. */
export const DESIGN_LIMITS = { sizes: 100, slides: 50, elementsPerSlide: 500, side: 8000 } as const;

const HASH_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export const SizeHashSchema = Type.String({
  pattern: '^[a-z0-9]{7}$',
  'x-rule': 'must be 7 lowercase letters or digits',
  description: 'Size hash: 7 lowercase letters or digits; filled in by the service when absent',
});

export const Slide = Type.Object(
  {
    duration: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 5, description: 'Seconds; default 5' }),
    ),
    elements: Type.Array(LayerSchema, {
      maxItems: DESIGN_LIMITS.elementsPerSlide,
      description: 'Drawn in order: the first is at the back. At most 500',
    }),
  },
  { additionalProperties: false },
);
export type Slide = Static<typeof Slide>;

const Side = (what: string) =>
  Type.Integer({ minimum: 1, maximum: DESIGN_LIMITS.side, description: `${what} in px, 1..${DESIGN_LIMITS.side}` });

export const DesignSizeSchema = Type.Object(
  {
    hash: Type.Optional(SizeHashSchema),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(
      Type.Enum(['system_design', 'custom_design'], {
        description: 'Derived by the service from width × height: system_design for a standard IAB/social size',
      }),
    ),
    width: Side('Width'),
    height: Side('Height'),
    measureUnit: Type.Optional(Type.Literal('px', { default: 'px' })),
    backgroundColor: Type.Optional(Type.With(Colour, { default: '#FFFFFF' })),
    slides: Type.Array(Slide, { minItems: 1, maxItems: DESIGN_LIMITS.slides, description: 'At most 50' }),
  },
  { additionalProperties: false },
);
export type DesignSize = Static<typeof DesignSizeSchema>;

export const DesignDocument = Type.Object(
  {
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CURRENT_DOCUMENT_VERSION,
        default: CURRENT_DOCUMENT_VERSION,
        description: `Format version; this service writes ${CURRENT_DOCUMENT_VERSION}. Absent means 1`,
      }),
    ),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    loop: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Literal('infinite')], {
        default: 1,
        description: 'How many times animated exports play the slides: 1..100 or "infinite"; default 1',
      }),
    ),
    sizes: Type.Array(DesignSizeSchema, { minItems: 1, maxItems: DESIGN_LIMITS.sizes, description: 'At most 100' }),
  },
  {
    additionalProperties: false,
    description: 'Design document (SPEC §5); published at /v1/schemas/design-document.json',
  },
);
export type DesignDocument = Static<typeof DesignDocument>;

/** The document schema as a standalone JSON Schema (draft 2020-12), for GET /v1/schemas/design-document.json. */
export function designDocumentJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Placard design document',
    ...(JSON.parse(JSON.stringify(DesignDocument)) as Record<string, unknown>),
  };
}

// Ajv's standalone code for DesignDocument, with the settings of request bodies (http/validation.ts): no coercion,
// defaults filled in, every error. Compiling it at import cost ~230 ms of every start (issue 21); `npm run
// schema:compile` regenerates it and test/cli/compiled-validators.test.ts fails when it no longer matches the schema.
const check = generatedCheck as unknown as ValidateFunction<DesignDocument>;

const MAX_DETAILS = 20;

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

/** Where an element is, for messages: `sizes[0].slides[1].elements[2]`. */
function elementPointer(size: number, slide: number, element: number): string {
  return `/sizes/${size}/slides/${slide}/elements/${element}`;
}

/**
 * The rules JSON Schema cannot express, on a document that passed the schema. Pointers are relative to the document.
 * - an element name is unique within its size (it is the key of element changes);
 * - an element shared by name across the sizes of a set keeps one type (a change must apply to all of them);
 * - size hashes are distinct (exports address sizes by hash).
 */
export function semanticProblems(doc: DesignDocument): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const typeOfName = new Map<string, { type: string; where: string }>();
  const hashes = new Map<string, number>();
  doc.sizes.forEach((size, s) => {
    if (size.hash !== undefined) {
      const first = hashes.get(size.hash);
      if (first !== undefined) {
        problems.push({
          path: `/sizes/${s}/hash`,
          in: 'body',
          message: `size hash '${size.hash}' is already used by sizes[${first}]; size hashes must be distinct`,
        });
      } else hashes.set(size.hash, s);
    }
    const inSize = new Map<string, string>();
    size.slides.forEach((slide, sl) => {
      slide.elements.forEach((element: Layer, e) => {
        const here = elementPointer(s, sl, e);
        const earlier = inSize.get(element.name);
        if (earlier) {
          problems.push({
            path: `${here}/name`,
            in: 'body',
            message: `element name '${element.name}' is already used in this size by ${pointerToPath(earlier)}; names must be unique within a size`,
          });
          return;
        }
        inSize.set(element.name, here);
        const shared = typeOfName.get(element.name);
        if (!shared) typeOfName.set(element.name, { type: element.type, where: here });
        else if (shared.type !== element.type) {
          problems.push({
            path: `${here}/type`,
            in: 'body',
            message: `element '${element.name}' is ${article(shared.type)} ${shared.type} at ${pointerToPath(shared.where)} but ${article(element.type)} ${element.type} here; an element shared by name across sizes must keep one type`,
          });
        }
      });
    });
  });
  return problems.slice(0, MAX_DETAILS);
}

function fail(details: ErrorDetail[]): never {
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem(s), see details)` : '';
  throw new AppError('VALIDATION_FAILED', `${pointerToPath(first.path) || 'document'}: ${first.message}${more}`, {
    details,
  });
}

export interface ValidateOptions {
  /** JSON pointer of the document inside the request body (e.g. `/document`); paths in errors start with it. */
  pointer?: string;
}

/**
 * Checks `raw` against the schema and the semantic rules and returns a copy with every default filled in (the input
 * is not touched). Throws VALIDATION_FAILED whose details name each offending field, its rule and the value received.
 */
export function validateDocument(raw: unknown, options: ValidateOptions = {}): DesignDocument {
  const pointer = options.pointer ?? '';
  const doc = structuredClone(raw);
  if (!check(doc)) {
    const errors = (check.errors ?? []).map((error) => ({ ...error, instancePath: pointer + error.instancePath }));
    const { message, details } = describeValidation(errors, 'body');
    throw new AppError('VALIDATION_FAILED', message, { details });
  }
  const problems = semanticProblems(doc);
  if (problems.length) fail(problems.map((p) => ({ ...p, path: pointer + p.path })));
  return doc;
}

/** Migrates an older document to the current version, then validates it: how every document enters the service. */
export function readDocument(raw: unknown, options: ValidateOptions = {}): DesignDocument {
  return validateDocument(migrateDocument(raw, options), options);
}

function randomHash(): string {
  let out = '';
  for (let i = 0; i < 7; i++) out += HASH_ALPHABET[randomInt(HASH_ALPHABET.length)];
  return out;
}

/**
 * Fills in what the service owns, on a validated document, returning a new one:
 * - `version`: the current version;
 * - `hash` of each size: kept when present; else the hash of the `existing` document's size with the same name and
 *   dimensions (so replacing a document without hashes keeps its sizes' identities); else a new random one, distinct
 *   within the document;
 * - `kind`: always derived from width × height (a client cannot declare a custom size to be standard).
 */
export function normaliseDocument(doc: DesignDocument, existing?: DesignDocument): DesignDocument {
  const taken = new Set<string>(doc.sizes.flatMap((size) => (size.hash ? [size.hash] : [])));
  const previous = new Map<string, string>();
  for (const size of existing?.sizes ?? []) {
    const key = `${size.name}\u0000${size.width}x${size.height}`;
    if (size.hash && !previous.has(key)) previous.set(key, size.hash);
  }
  const sizes = doc.sizes.map((size) => {
    let hash = size.hash;
    if (!hash) {
      const inherited = previous.get(`${size.name}\u0000${size.width}x${size.height}`);
      if (inherited && !taken.has(inherited)) hash = inherited;
      else {
        do hash = randomHash();
        while (taken.has(hash));
      }
      taken.add(hash);
    }
    return { ...size, hash, kind: sizeKind(size.width, size.height) };
  });
  return { ...structuredClone(doc), version: CURRENT_DOCUMENT_VERSION, sizes: structuredClone(sizes) };
}
