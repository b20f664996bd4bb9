// Schemas of design versions (seed "Design versions", SPEC §11): snapshots of the whole design document.
import { Type } from 'typebox';
import { Ok, Timestamp } from './common.js';
import { DesignHash, DocumentResponse } from './templates.js';

const Hash = Type.With(DesignHash, { description: 'A design hash or the hash of one of its sizes' });
const VersionName = Type.String({ minLength: 1, maxLength: 200 });
const VersionId = Type.String({ minLength: 1, maxLength: 100, description: 'Id of a version, from the list' });

export const DesignVersion = Type.Object({
  id: Type.String(),
  lastModified: Timestamp,
  lastModifiedByName: Type.String(),
  lastModifiedByProfilePicture: Type.String({ description: 'URL of the profile picture' }),
  versionName: Type.String(),
  sizeHash: Type.String({ description: 'The size hash given when the version was saved, or the first size' }),
});

export const ListDesignVersionsQuery = Type.Object({ hash: Hash });

export const ListDesignVersionsResponse = Ok(Type.Array(DesignVersion, { description: 'Newest first' }));

export const CreateDesignVersionBody = Type.Object(
  { hash: Hash, versionName: VersionName },
  { additionalProperties: false },
);

export const RenameDesignVersionBody = Type.Object(
  { hash: Hash, versionName: VersionName, versionId: VersionId },
  { additionalProperties: false },
);

export const RestoreDesignVersionBody = Type.Object(
  { hash: Hash, versionId: VersionId },
  { additionalProperties: false },
);

export const DesignVersionStatus = Ok(Type.Object({ status: Type.Enum(['success', 'failed']) }));

export const DesignVersionDocumentQuery = Type.Object(
  { hash: Hash, versionId: VersionId },
  { additionalProperties: false },
);

/** The version's design document, in the current format (as a restore would store it). */
export const DesignVersionDocumentResponse = DocumentResponse;
