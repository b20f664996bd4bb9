// Schemas of designs (the seed's templates): hashes, the listed node, sizes, the design document, its editable
// elements, fonts, and the element changes (SPEC §5) that exports and share links apply to a design.

import { Type } from 'typebox';
import { DesignHash, ElementChangeAttribute } from '../../domain/changes.schema.js';
import { DesignDocument } from '../../domain/design.schema.js';
import { Id, Nullable, Ok, PageOf, PageQueryFields } from './common.js';

export {
  DesignHash,
  ELEMENT_CHANGE_ATTRIBUTES,
  ElementChange,
  ElementChangeAttribute,
  ElementChanges,
  ElementsChanges,
  GeneralChanges,
  HexColour,
  SizeHash,
} from '../../domain/changes.schema.js';

/**
 * The design document (SPEC §5), defined with the layer union of elements/registry.ts in domain/design.schema.ts and
 * re-exported here so that every route that reads or writes a document validates and documents the real thing.
 */
export { DesignDocument };

// ---- templates ----

export const TemplateNode = Type.Object({
  id: Type.String({ description: 'Design hash' }),
  name: Type.String(),
  isTemplate: Type.Boolean({ description: 'Whether the design is marked as a custom template of the team' }),
  projectId: Type.Integer(),
  apiGenerated: Type.Boolean({ description: 'True when the design was created through the API' }),
  thumbUrl: Type.String({
    description:
      'Thumbnail link, valid for 12 hours. Until the thumbnail is drawn it answers 404 with Retry-After, then the PNG',
  }),
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
