// Schemas of designs (the seed's templates): hashes, the listed node, sizes, the design document, its editable
// elements, fonts, and the element changes (SPEC §5) that exports and share links apply to a design.

import { type Static, Type } from 'typebox';
import { DesignDocument } from '../../domain/design.schema.js';
import { CHANGE_ATTRIBUTES } from '../../elements/element-kind.js';
import { Id, Nullable, Ok, PageOf, PageQueryFields } from './common.js';

const HASH_RULE = 'must be 7 lowercase letters or digits';

/** A design (template, creative) hash: 7 lowercase alphanumerics, random and unique across the service. */
export const DesignHash = Type.String({
  pattern: '^[a-z0-9]{7}$',
  'x-rule': HASH_RULE,
  description: 'Design hash: 7 lowercase letters or digits',
});

/** The hash of one size inside a design set; same form as a design hash. */
export const SizeHash = Type.String({
  pattern: '^[a-z0-9]{7}$',
  'x-rule': HASH_RULE,
  description: 'Size hash (from GET /v1/templates/{templateHash}/design-sizes): 7 lowercase letters or digits',
});

export const HexColour = Type.String({
  pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
  'x-rule': 'must be a hex colour such as #FFF or #FFFFFF',
  description: 'Hex colour: `#` followed by 3 or 6 characters from 0-9, a-f, A-F',
});

/**
 * The design document (SPEC §5), defined with the layer union of elements/registry.ts in domain/design.schema.ts and
 * re-exported here so that every route that reads or writes a document validates and documents the real thing.
 */
export { DesignDocument };

// ---- element changes (SPEC §5), shared by exports and share links ----

/** One list for the domain and the HTTP layer: the registry's. */
export const ELEMENT_CHANGE_ATTRIBUTES = CHANGE_ATTRIBUTES;

export const ElementChangeAttribute = Type.Enum([...ELEMENT_CHANGE_ATTRIBUTES], {
  description: 'What to change; which element types accept which attribute is in SPEC §5',
});

export const ElementChange = Type.Object(
  {
    attribute: ElementChangeAttribute,
    value: Type.String({
      maxLength: 65536,
      description:
        'The new value, always a string. Its rule depends on the attribute (LABEL up to 10,000 characters, CODE up to ' +
        '64 KiB, VISIBILITY `true` or `false`, TEXTCOLOR/BGCOLOR hex, LINEHEIGHT 0.5..5, LETTERSPACING -50..200 px, …); ' +
        'a value that breaks it is a 422 INVALID_ELEMENT_CHANGE',
    }),
  },
  { additionalProperties: false },
);

export const ElementChanges = Type.Object(
  {
    elementName: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Name of the element; the change applies to it in every size of the set that has it',
    }),
    changes: Type.Array(ElementChange, { maxItems: 50, description: 'Applied in order; at most 50' }),
  },
  { additionalProperties: false },
);

export const ElementsChanges = Type.Array(ElementChanges, {
  maxItems: 500,
  description: 'Changes of named elements, applied in request order; at most 500 entries',
});

export const GeneralChanges = Type.Object(
  { backgroundColor: Type.Optional(HexColour) },
  { additionalProperties: false, description: "Changes of the whole design; backgroundColor sets every size's" },
);

export type ElementChange = Static<typeof ElementChange>;
export type ElementsChanges = Static<typeof ElementsChanges>;
export type GeneralChanges = Static<typeof GeneralChanges>;

// ---- templates ----

export const TemplateNode = Type.Object({
  id: Type.String({ description: 'Design hash' }),
  name: Type.String(),
  isTemplate: Type.Boolean({ description: 'Whether the design is marked as a custom template of the team' }),
  projectId: Type.Integer(),
  apiGenerated: Type.Boolean({ description: 'True when the design was created through the API' }),
  thumbUrl: Nullable(
    Type.String({ description: 'Thumbnail link, valid for 12 hours; null until the thumbnail has been made' }),
  ),
});

export const ListTemplatesQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  projectId: Type.Optional(Id),
  folderId: Type.Optional(Type.With(Id, { description: 'Only designs of this folder (extension)' })),
  ...PageQueryFields,
  apiGenerated: Type.Optional(
    Type.Boolean({ description: 'true lists only API-generated designs; they are excluded otherwise' }),
  ),
  onlyTemplates: Type.Optional(Type.Boolean({ description: 'Only designs marked as custom templates of the team' })),
  exactSearch: Type.Optional(
    Type.Boolean({ description: 'Only designs whose name equals `keyword` (case-insensitive)' }),
  ),
});

export const ListTemplatesResponse = PageOf(TemplateNode);

export const DeleteTemplateBody = Type.Object({ hash: DesignHash }, { additionalProperties: false });

export const UpdateTemplateBody = Type.Object(
  {
    hash: DesignHash,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    isTemplate: Type.Optional(Type.Boolean({ description: 'Mark or unmark the design as a team template' })),
  },
  { additionalProperties: false },
);

export const TemplateResponse = Ok(Type.Object({ template: TemplateNode }));

export const TemplateHashParams = Type.Object({ templateHash: DesignHash });
export const HashParams = Type.Object({ hash: DesignHash });

export const DesignSize = Type.Object({
  hash: Type.String({ description: 'Size hash' }),
  name: Type.String(),
  kind: Type.Enum(['system_design', 'custom_design'], {
    description: 'system_design for a standard IAB or social size, custom_design otherwise',
  }),
  width: Type.Number(),
  height: Type.Number(),
  measureUnit: Type.String({ description: 'Always px' }),
});

export const DesignSizesResponse = Ok(Type.Array(DesignSize));

export const ImportTemplateBody = Type.Object(
  {
    projectId: Id,
    folderId: Type.Optional(Type.With(Id, { description: 'Folder of the project; the project root when absent' })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    isTemplate: Type.Optional(Type.Boolean({ default: false })),
    document: DesignDocument,
  },
  { additionalProperties: false },
);

export const DocumentResponse = Ok(DesignDocument);

export const ReplaceDocumentBody = Type.Object({ document: DesignDocument }, { additionalProperties: false });

export const ReplaceDocumentResponse = Ok(
  Type.Object({
    template: TemplateNode,
    document: Type.With(DesignDocument, { description: 'The stored document, with size hashes and kinds filled in' }),
  }),
);

export const LAYER_TYPES = ['text', 'image', 'shape', 'button', 'svg', 'code', 'video', 'audio'] as const;

export const EditableElement = Type.Object({
  name: Type.String({ description: 'The key of element changes' }),
  layerType: Type.Enum([...LAYER_TYPES]),
  value: Nullable(
    Type.String({ description: 'Current value: the text, label, source or embed code, as the element type has' }),
  ),
  visible: Type.Boolean(),
  slideNumber: Type.Integer({ minimum: 0, description: 'Slide of the element, counting from 0' }),
  gotoUrl: Nullable(Type.String({ description: 'Click-through URL of the element' })),
  attributes: Type.Array(ElementChangeAttribute, { description: 'The change attributes this element accepts' }),
});

export const ElementsResponse = Ok(Type.Array(EditableElement));

export const FontVariantsQuery = Type.Object({
  templateHash: Type.Optional(DesignHash),
  elementName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'With templateHash: only the font of this element' }),
  ),
  fontFamily: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Variants of this family' })),
});

const Variants = Type.Array(Type.String(), { description: 'Weights with an optional italic, e.g. 400, 700italic' });

export const FontVariantsResponse = Ok(Type.Array(Type.Object({ fontFamily: Type.String(), variants: Variants })));

export const FontsResponse = Ok(
  Type.Array(
    Type.Object({
      fontFamily: Type.String(),
      variants: Variants,
      scripts: Type.Array(Type.String(), { description: 'Scripts the family covers, e.g. latin, cyrillic' }),
      team: Type.Optional(
        Type.Literal(true, { description: "A family uploaded to the team's brand kits (its scripts are not listed)" }),
      ),
    }),
  ),
);

/** The JSON Schema of the design document, served as is (not wrapped in `response`) so tools can use it directly. */
export const DesignDocumentJsonSchema = Type.Object(
  {},
  { additionalProperties: true, description: 'JSON Schema (draft 2020-12) of the design document' },
);
