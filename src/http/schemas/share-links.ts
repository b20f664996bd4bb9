// Schemas of share links (seed "Share links", SPEC §7): the stable link of a design and previews of changes.
import { Type } from 'typebox';
import { Nullable, Ok, Timestamp } from './common.js';
import { DesignHash, ElementsChanges, GeneralChanges } from './templates.js';

export const ShareLinkParams = Type.Object({ templateHash: DesignHash });

const ShareLinkUrl = Type.String({
  description: 'Public page (no authentication) that plays the design live, with a size switcher for sets',
});

const Position = Type.Object(
  {
    sizeHash: Type.String({ pattern: '^[a-z0-9]{7}$', description: 'The size the comment is pinned to' }),
    x: Type.Number({ minimum: 0, maximum: 8000, description: 'px from the left of the size' }),
    y: Type.Number({ minimum: 0, maximum: 8000, description: 'px from the top of the size' }),
  },
  { additionalProperties: false },
);
const Reply = Type.Object({ id: Type.String(), author: Type.String(), text: Type.String(), createdAt: Timestamp });
export const Thread = Type.Object({
  id: Type.String(),
  author: Type.String({ description: 'The name the reviewer gave (plain text)' }),
  text: Type.String({ description: 'Plain text; never interpreted as HTML' }),
  createdAt: Timestamp,
  resolved: Type.Boolean(),
  position: Nullable(Position),
  replies: Type.Array(Reply),
});
export const Review = Type.Object({
  id: Type.String(),
  decision: Type.Enum(['approved', 'changesRequested']),
  author: Type.String(),
  text: Type.String(),
  createdAt: Timestamp,
});

export const ShareLinkResponse = Ok(
  Type.Object({
    shareLinkUrl: ShareLinkUrl,
    comments: Type.Object({
      threads: Type.Array(Thread, { description: 'Comment threads reviewers wrote on the share pages of the design' }),
    }),
  }),
);

export const ShareToken = Type.String({
  pattern: '^[A-Za-z0-9_-]{22}$',
  description: '128-bit random token (base64url)',
});
export const CommentBody = Type.Object(
  {
    author: Type.String({ minLength: 1, maxLength: 80 }),
    text: Type.String({ minLength: 1, maxLength: 2000 }),
    parentId: Type.Optional(Type.String({ format: 'uuid', description: 'Reply to this thread' })),
    position: Type.Optional(Position),
  },
  { additionalProperties: false },
);
export const ResolveBody = Type.Object({ resolved: Type.Boolean() }, { additionalProperties: false });
export const ReviewBody = Type.Object(
  {
    author: Type.String({ minLength: 1, maxLength: 80 }),
    decision: Type.Enum(['approve', 'changes']),
    text: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export const CommentsResponse = Ok(Type.Object({ threads: Type.Array(Thread), reviews: Type.Array(Review) }));

export const GenerateShareLinkBody = Type.Object(
  {
    templateHash: DesignHash,
    elementsChanges: ElementsChanges,
    generalChanges: Type.Optional(GeneralChanges),
  },
  { additionalProperties: false },
);

const PreviewUrl = Type.String({ description: 'Link of the preview page (the same page as shareLinkUrl)' });
const PreviewId = Type.String({ description: 'Id of the stored preview' });

/** Both shapes that clients of this API family read: inside `response`, and previewUrl/previewId at the top. */
export const GenerateShareLinkResponse = Type.Object(
  {
    response: Type.Object({ shareLinkUrl: ShareLinkUrl, previewUrl: PreviewUrl, previewId: PreviewId }),
    previewUrl: PreviewUrl,
    previewId: PreviewId,
  },
  { additionalProperties: false },
);
