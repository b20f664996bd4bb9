// Schemas of folders (seed "Folders", SPEC §11): listing the children of a folder with its breadcrumb, the folder
// extensions, and moving a design between folders.
import { Type } from 'typebox';
import { Id, Nullable, Ok, Timestamp, UserRef } from './common.js';
import { DesignHash } from './templates.js';

export const Folder = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  parentId: Nullable(Type.Integer({ description: 'null for a folder at the root of the project' })),
  createdByUser: UserRef,
  isParent: Nullable(Type.Boolean({ description: 'Whether the folder has subfolders' })),
  updatedAt: Timestamp,
  createdAt: Timestamp,
  updatedByUser: UserRef,
});

export const ListFoldersQuery = Type.Object({
  projectId: Id,
  parentId: Type.Optional(Type.With(Id, { description: 'List the children of this folder; the root when absent' })),
});

export const ListFoldersResponse = Ok(
  Type.Object({
    folders: Type.Array(Folder),
    path: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), {
      description: 'Breadcrumb from the root to parentId; empty at the root',
    }),
    rootFolderHash: Nullable(Type.String({ description: 'Always null' })),
  }),
);

/** A name with at least one visible character; surrounding spaces are trimmed when stored. */
const Name = Type.String({ maxLength: 200, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' });

const FolderOrRoot = Type.Union([Id, Type.Literal(-1)], { description: 'A folder id, or -1 for the project root' });

export const CreateFolderBody = Type.Object(
  {
    projectId: Id,
    name: Name,
    parentId: Type.Optional(Type.With(Id, { description: 'Parent folder; the project root when absent' })),
  },
  { additionalProperties: false },
);

export const UpdateFolderBody = Type.Object(
  {
    folderId: Id,
    name: Type.Optional(Name),
    parentId: Type.Optional(
      Type.Union([Id, Type.Literal(-1), Type.Null()], {
        description: 'Moves the folder under this one; -1 or null moves it to the project root',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeleteFolderBody = Type.Object({ folderId: Id }, { additionalProperties: false });

export const FolderResponse = Ok(Type.Object({ folder: Folder }));

export const MoveDesignToFolderBody = Type.Object(
  { designHash: DesignHash, folderId: FolderOrRoot },
  { additionalProperties: false },
);

export const MoveDesignToFolderResponse = Ok(Type.Literal(true));
