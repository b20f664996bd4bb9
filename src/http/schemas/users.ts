import { Type } from 'typebox';
import { Id, Ok, PageOf, PageQueryFields } from './common.js';

export const Role = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
});

export const TeamUser = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  profilePicture: Type.String({ description: 'URL of the profile picture (a generated avatar until one is set)' }),
  role: Role,
});

export const ListUsersQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive search in name and email' })),
  ...PageQueryFields,
});

export const ListUsersResponse = PageOf(TeamUser);

export const CreateUserBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    role: Type.String({ minLength: 1, maxLength: 50, description: 'Owner, Admin, Editor or Viewer (any case)' }),
  },
  { additionalProperties: false },
);

export const CreateUserResponse = Ok(Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() }));

export const DeleteUserBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 320 }) },
  { additionalProperties: false },
);

export const UpdateRoleBody = Type.Object(
  {
    userId: Id,
    roleId: Type.Integer({ enum: [1, 2, 3, 4], description: '1 Owner, 2 Admin, 3 Editor, 4 Viewer' }),
  },
  { additionalProperties: false },
);

export const UpdateRoleResponse = Ok(TeamUser);

export const ListRolesResponse = Ok(Type.Array(Role));
