// Render URLs (issue 23, docs/render-urls.md): the signing secret and the signed-link maker.
import { type Static, Type } from 'typebox';
import { Nullable, Ok, Timestamp } from './common.js';
import { DesignHash, ElementsChanges } from './templates.js';

export const RenderUrlSecretResponse = Ok(
  Type.Object({
    secret: Type.String({
      description: 'The key of the HMAC-SHA256 signature of render URLs (its UTF-8 bytes); keep it on servers only',
    }),
    createdAt: Timestamp,
    previousValidUntil: Nullable(
      Type.String({
        format: 'date-time',
        description: 'Until when links signed with the secret before the last rotation keep working; null when none do',
      }),
    ),
  }),
);

export const CreateRenderUrlBody = Type.Object(
  {
    templateHash: DesignHash,
    format: Type.String({
      maxLength: 10,
      description: 'png, jpg (jpeg), webp or avif, any letter case: the still formats of the format registry',
    }),
    size: Type.Optional(
      Type.String({
        pattern: '^([a-z0-9]{7}|[0-9]{1,5}x[0-9]{1,5})$',
        description: 'A size of a design set, by its hash or as WxH; default the first size',
      }),
    ),
    elementsChanges: Type.Optional(ElementsChanges),
    scale: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 16, description: 'Output pixels per design pixel, default 1' }),
    ),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'JPG, WEBP and AVIF: 1..100' })),
    slide: Type.Optional(Type.Integer({ minimum: 0, maximum: 999, description: 'The slide, from 0; default 0' })),
    versionId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'A design version (GET /v1/designVersion): the link then shows it for ever, cached as immutable',
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the link stops working (exp, inside the signature)' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateRenderUrlBody = Static<typeof CreateRenderUrlBody>;

export const CreateRenderUrlResponse = Ok(
  Type.Object({
    url: Type.String({ description: 'The signed link: put it in an <img src>, an og:image tag or an ad tag' }),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    cacheControl: Type.String({ description: 'The Cache-Control the link answers with' }),
  }),
);
