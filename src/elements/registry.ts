// The only place that branches on `element.type`: every element kind is listed here once, and everything else (the
// document schema, element changes, the elements endpoint, the renderer) asks `kindOf`. Adding a type means one new
// folder under elements/ and one line in ELEMENT_KINDS.
import { type TSchema, Type } from 'typebox';
import { audioKind } from './audio/index.js';
import type { AudioElement } from './audio/schema.js';
import { buttonKind } from './button/index.js';
import type { ButtonElement } from './button/schema.js';
import { codeKind } from './code/index.js';
import type { CodeElement } from './code/schema.js';
import type { BaseElement } from './common.js';
import type { ElementKind } from './element-kind.js';
import { imageKind } from './image/index.js';
import type { ImageElement } from './image/schema.js';
import { shapeKind } from './shape/index.js';
import type { ShapeElement } from './shape/schema.js';
import { svgKind } from './svg/index.js';
import type { SvgElement } from './svg/schema.js';
import { textKind } from './text/index.js';
import type { TextElement } from './text/schema.js';
import { videoKind } from './video/index.js';
import type { VideoElement } from './video/schema.js';

/** Any element of a design document. */
export type Layer =
  | TextElement
  | ImageElement
  | ShapeElement
  | ButtonElement
  | SvgElement
  | CodeElement
  | VideoElement
  | AudioElement;
export type LayerType = Layer['type'];

/** Every kind, in the order the published schema lists them. */
export const ELEMENT_KINDS = [
  textKind,
  imageKind,
  shapeKind,
  buttonKind,
  svgKind,
  codeKind,
  videoKind,
  audioKind,
] as const;

export const ELEMENT_TYPES = ELEMENT_KINDS.map((kind) => kind.type) as LayerType[];

const BY_TYPE = new Map<string, ElementKind>(ELEMENT_KINDS.map((kind) => [kind.type, kind as unknown as ElementKind]));

/** The kind of a type; throws on a type no kind has, which a validated document never contains. */
export function kindOf<T extends LayerType>(type: T): ElementKind<Extract<Layer, { type: T }>>;
export function kindOf(type: string): ElementKind;
export function kindOf(type: string): ElementKind {
  const kind = BY_TYPE.get(type);
  if (!kind) throw new Error(`unknown element type '${type}'; known types: ${ELEMENT_TYPES.join(', ')}`);
  return kind;
}

/** Whether `type` names an element kind. */
export function isLayerType(type: string): type is LayerType {
  return BY_TYPE.has(type);
}

/** The kind of an element, typed loosely enough to call with any layer. */
export function kindOfElement(element: BaseElement): ElementKind<BaseElement> {
  return kindOf(element.type) as ElementKind<BaseElement>;
}

/**
 * The schema of one layer. Not an anyOf: Ajv reports every failing branch of an anyOf, so a text element with a bad
 * colour would also be told it lacks `src`, and Ajv does not apply defaults inside anyOf. An if/then/else chain on
 * `type` checks each element against the schema of its own type only, so errors name exactly what is wrong and
 * defaults are filled in. An unknown or missing `type` is reported by the outer enum and required.
 */
function layerSchema(): TSchema {
  let chain: Record<string, unknown> = {};
  for (const kind of [...ELEMENT_KINDS].reverse()) {
    chain = {
      if: { type: 'object', properties: { type: { const: kind.type } }, required: ['type'] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; a non-function `then` is never awaited.
      then: kind.schema,
      ...(Object.keys(chain).length ? { else: chain } : {}),
    };
  }
  return {
    type: 'object',
    required: ['type'],
    properties: {
      type: { enum: ELEMENT_TYPES, description: `Element type: ${ELEMENT_TYPES.join(', ')}` },
    },
    ...chain,
    description: `An element (layer); \`type\` (${ELEMENT_TYPES.join(', ')}) decides which other fields it has`,
  } as unknown as TSchema;
}

export const LayerSchema = Type.Unsafe<Layer>(layerSchema());
