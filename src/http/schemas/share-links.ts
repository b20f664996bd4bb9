// Schemas of share links (seed "Share links", SPEC §7): the stable link of a design and previews of changes.
import { Type } from 'typebox';
import { Ok } from './common.js';
import { DesignHash, ElementsChanges, GeneralChanges } from './templates.js';

export const ShareLinkParams = Type.Object({ templateHash: DesignHash });

const ShareLinkUrl = Type.String({
  description: 'Public page (no authentication) that plays the design live, with a size switcher for sets',
});

export const ShareLinkResponse = Ok(
  Type.Object({
    shareLinkUrl: ShareLinkUrl,
    comments: Type.Object({
      threads: Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: 'Comment threads of the design; always empty in this version',
      }),
    }),
  }),
);

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
