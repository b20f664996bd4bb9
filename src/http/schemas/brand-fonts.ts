// Schemas of brand fonts (issue 17): the faces of a brand kit's uploaded font files. A face's `id` is the seed's
// typography `fontId`.
import { Type } from 'typebox';
import { Id, Nullable, Ok, PageOf, PageQueryFields, Timestamp } from './common.js';

export const BrandFont = Type.Object({
  id: Type.Integer({ description: "The face's id: the seed's typography fontId" }),
  brandkitId: Type.Integer(),
  family: Type.String({ description: "From the font's name table (typographic family, else family)" }),
  variant: Type.String({ description: 'As FONTVARIANT spells it: 400, 700italic … (OS/2 weight and style)' }),
  style: Type.Enum(['normal', 'italic']),
  weight: Type.Integer({ minimum: 100, maximum: 900 }),
  format: Type.Enum(['ttf', 'otf', 'woff', 'woff2', 'ttc'], { description: 'Of the uploaded file, by content' }),
  glyphCount: Type.Integer({ minimum: 1 }),
  fileName: Type.String(),
  embeddable: Type.Boolean({
    description:
      'False when OS/2 fsType forbids embedding (restricted, no subsetting or bitmap only): drawn in raster and video formats, refused by PDF and HTML5 exports',
  }),
  postscriptName: Nullable(Type.String()),
  variation: Nullable(
    Type.Record(Type.String(), Type.Number(), { description: "A variable font's named instance: axis → value" }),
  ),
  checksum: Type.String({ description: 'SHA-256 of the stored file, hex' }),
  size: Type.Integer({ description: 'Bytes of the stored file' }),
  createdAt: Timestamp,
  createdBy: Type.Integer(),
});

const UploadedFace = Type.Intersect([BrandFont, Type.Object({ source: Type.String() })]);
const FailedSource = Type.Object({
  source: Type.String({ description: 'The link, or the file name of a multipart part' }),
  fileName: Type.String(),
  error: Type.String({ description: 'Why nothing of this file was stored' }),
  code: Type.String({ description: 'FONT_REJECTED or SOURCE_REJECTED' }),
});

export const UploadFontsResponse = Ok(
  Type.Object({
    fonts: Type.Array(Type.Union([UploadedFace, FailedSource]), {
      description: 'One entry per stored face (a collection or variable font gives several), or per failed source',
    }),
  }),
);

export const UploadFontsBody = Type.Object(
  {
    brandkitId: Id,
    sources: Type.Array(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
        'x-rule': 'must be an http or https link',
      }),
      { minItems: 1, maxItems: 20, description: 'Public direct links of font files (10 MB each at most)' },
    ),
  },
  { additionalProperties: false },
);

export const DeleteFontBody = Type.Object({ brandkitId: Id, fontId: Id }, { additionalProperties: false });

export const ListFontsQuery = Type.Object(PageQueryFields);
export const ListFontsResponse = PageOf(BrandFont);
