// Schemas of brand kits (seed "Brand kits", SPEC §11). The typography entries are the seed's, shared with projects.
import { Type } from 'typebox';
import { Id, Nullable, Ok, PageOf, PageQueryFields, Timestamp } from './common.js';

export const Typography = Type.Object({
  fontId: Nullable(Type.Integer()),
  fontName: Type.String(),
  fontSize: Type.Integer(),
  fontWeight: Type.String(),
  type: Type.String({ description: 'What the style is for, e.g. heading or body' }),
});

const Hex = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', 'x-rule': 'must be a colour as #rrggbb' });

export const BrandColor = Type.Object({
  name: Type.String({ description: 'What the colour is for, e.g. Primary' }),
  hex: Type.String({ description: '#rrggbb' }),
});

export const BrandColorInput = Type.Object(
  {
    name: Type.String({ maxLength: 100, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' }),
    hex: Hex,
  },
  { additionalProperties: false },
);

export const BrandKit = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  teamId: Type.Integer(),
  createdBy: Type.Integer({ description: 'User id' }),
  typography: Type.Array(Typography),
  colors: Type.Array(BrandColor, { description: "Extension (issue 18): the kit's palette" }),
  createdAt: Timestamp,
});

export const BrandKitNode = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  teamId: Type.Integer(),
  createdBy: Type.Integer({ description: 'User id' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  assetCount: Type.Integer({ minimum: 0 }),
  colors: Type.Array(BrandColor, { description: "Extension (issue 18): the kit's palette" }),
});

export const ListBrandKitsQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  ...PageQueryFields,
});

export const ListBrandKitsResponse = PageOf(BrandKitNode);

/** A name with at least one visible character; surrounding spaces are trimmed when stored. */
const Name = Type.String({ maxLength: 200, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' });

export const CreateBrandKitBody = Type.Object({ name: Name }, { additionalProperties: false });

export const TypographyInput = Type.Object(
  {
    fontId: Nullable(Type.With(Id, { description: 'A brand font face of the team (its id); null: a bundled family' })),
    fontName: Type.String({ maxLength: 200 }),
    fontSize: Type.Integer({ minimum: 1, maximum: 1000 }),
    fontWeight: Type.String({ maxLength: 20 }),
    type: Type.String({ maxLength: 100, description: 'What the style is for, e.g. heading or body' }),
  },
  { additionalProperties: false },
);

export const UpdateBrandKitBody = Type.Object(
  {
    brandkitId: Id,
    name: Name,
    typography: Type.Optional(
      Type.Array(TypographyInput, {
        maxItems: 50,
        description:
          "Extension (issue 17): replaces the kit's typography; each fontId must be a brand font of the team",
      }),
    ),
    colors: Type.Optional(
      Type.Array(BrandColorInput, {
        maxItems: 50,
        description: "Extension (issue 18): replaces the kit's palette; names are unique in a kit (case-insensitive)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeleteBrandKitBody = Type.Object({ brandkitId: Id }, { additionalProperties: false });

export const BrandKitResponse = Ok(Type.Object({ brandKit: BrandKit }));
