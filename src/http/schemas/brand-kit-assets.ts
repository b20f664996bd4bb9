// Schemas of brand kit assets and their media folders (seed "Brand kit assets", SPEC §9 and §11). An upload answers
// at once with assets in status PROCESSING; a background job fetches each source and settles its status.
import { Type } from 'typebox';
import { Id, Nullable, Ok, PageOf, Timestamp } from './common.js';

export const MEDIA_TYPES = ['IMAGE', 'VIDEO', 'AUDIO'] as const;
export const MEDIA_FORMATS = [
  'jpg',
  'png',
  'gif',
  'svg',
  'webp',
  'mp3',
  'wav',
  'ogg',
  'mp4',
  'mov',
  'avi',
  'webm',
  'mkv',
] as const;
export const MEDIA_STATUSES = ['PROCESSING', 'VALID', 'INVALID', 'ERROR'] as const;

export const MediaType = Type.Enum([...MEDIA_TYPES]);
export const MediaFormat = Type.Enum([...MEDIA_FORMATS], { description: 'jpeg files are reported as jpg' });

export const Media = Type.Object({
  id: Type.Integer(),
  hash: Type.String(),
  name: Type.String(),
  fileName: Type.String(),
  type: Nullable(Type.With(MediaType, { description: 'Decided by content sniffing; null while PROCESSING' })),
  format: Nullable(MediaFormat),
  size: Nullable(Type.Integer({ minimum: 0, description: 'Bytes' })),
  width: Nullable(Type.Integer({ minimum: 0, description: 'px; images and videos' })),
  height: Nullable(Type.Integer({ minimum: 0, description: 'px; images and videos' })),
  duration: Nullable(Type.Number({ minimum: 0, description: 'Seconds; audio and video' })),
  status: Type.Enum([...MEDIA_STATUSES], {
    description: 'PROCESSING until the source has been fetched, then VALID, INVALID (breaks a limit) or ERROR',
  }),
  url: Nullable(
    Type.String({ description: 'Signed download link, usable as a SOURCE value; null until the asset is VALID' }),
  ),
  src: Type.String({
    description: 'The source link the asset was uploaded from; `upload:` and the file name for a file sent from disk',
  }),
  checksum: Nullable(Type.String({ description: 'SHA-256 of the file, hex' })),
  mediaFolderId: Nullable(Type.Integer()),
  createdAt: Timestamp,
  createdBy: Type.Integer({ description: 'User id' }),
  error: Nullable(Type.String({ description: 'Why the asset is INVALID or ERROR' })),
});

export const UploadAssetsBody = Type.Object(
  {
    brandkitId: Id,
    mediaFolderId: Type.Optional(Type.With(Id, { description: 'Media folder inside the brand kit' })),
    sources: Type.Array(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
        'x-rule': 'must be an http or https link',
      }),
      {
        minItems: 1,
        maxItems: 50,
        description:
          'Public direct links of the files; each becomes one asset. A link that cannot be used (file-hosting share ' +
          'link, private address, not a media file, over a limit) makes its asset INVALID, not the request fail',
      },
    ),
  },
  { additionalProperties: false },
);

export const UploadAssetFilesQuery = Type.Object(
  { mediaFolderId: Type.Optional(Type.With(Id, { description: 'Media folder inside the brand kit' })) },
  { additionalProperties: false },
);

export const UploadAssetsResponse = Ok(Type.Object({ assets: Type.Array(Media) }));

export const BrandKitIdParams = Type.Object({ id: Id });

export const ListAssetsQuery = Type.Object({
  first: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, default 20, at most 100' })),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The endCursor of the previous page' })),
  parentId: Type.Optional(Type.With(Id, { description: 'Only assets of this media folder' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  mediaFormat: Type.Optional(MediaFormat),
  mediaType: Type.Optional(MediaType),
});

export const ListAssetsResponse = PageOf(Media);

export const MediaFolder = Type.Object({
  id: Type.Integer(),
  brandkitId: Type.Integer(),
  name: Type.String(),
  parentId: Nullable(Type.Integer({ description: 'null at the root of the brand kit' })),
  createdAt: Timestamp,
});

export const CreateMediaFolderBody = Type.Object(
  {
    brandkitId: Id,
    name: Type.String({ maxLength: 200, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' }),
    parentId: Type.Optional(Type.With(Id, { description: 'Parent media folder; the root when absent' })),
  },
  { additionalProperties: false },
);

export const MediaFolderResponse = Ok(Type.Object({ mediaFolder: MediaFolder }));

export const ListMediaFoldersResponse = Ok(
  Type.Array(MediaFolder, { description: 'Every media folder of the brand kit; nest them by parentId' }),
);
