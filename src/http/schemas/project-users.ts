// Schemas of the users of a project (seed "Project users", SPEC §2 visibility, §11).
import { Type } from 'typebox';
import { Id, Nullable, Ok } from './common.js';

export const ProjectUser = Type.Object({
  userId: Type.Integer(),
  teamId: Type.Integer(),
  name: Type.String(),
  url: Nullable(Type.String()),
  email: Type.String(),
  profilePicture: Nullable(Type.String({ description: 'URL of the profile picture' })),
  role: Type.String({ description: 'Name of the team role: Owner, Admin, Editor or Viewer' }),
  teamRoleId: Type.Integer({ description: '1 Owner, 2 Admin, 3 Editor, 4 Viewer' }),
});

export const ListProjectUsersQuery = Type.Object({ projectId: Id });

export const ListProjectUsersResponse = Ok(Type.Array(ProjectUser));

export const ProjectUserBody = Type.Object({ userId: Id, projectId: Id }, { additionalProperties: false });
