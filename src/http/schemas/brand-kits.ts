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

export const BrandKit = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  teamId: Type.Integer(),
  createdBy: Type.Integer({ description: 'User id' }),
  typography: Type.Array(Typography),
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
});

export const ListBrandKitsQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  ...PageQueryFields,
});

export const ListBrandKitsResponse = PageOf(BrandKitNode);

/** A name with at least one visible character; surrounding spaces are trimmed when stored. */
const Name = Type.String({ maxLength: 200, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' });

export const CreateBrandKitBody = Type.Object({ name: Name }, { additionalProperties: false });

export const UpdateBrandKitBody = Type.Object({ brandkitId: Id, name: Name }, { additionalProperties: false });

export const DeleteBrandKitBody = Type.Object({ brandkitId: Id }, { additionalProperties: false });

export const BrandKitResponse = Ok(Type.Object({ brandKit: BrandKit }));
