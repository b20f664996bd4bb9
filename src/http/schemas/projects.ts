// Schemas of projects (seed "Projects", SPEC §11): the list node and the full project of create and update.
import { Type } from 'typebox';
import { Typography } from './brand-kits.js';
import { Id, Nullable, Ok, PageOf, PageQueryFields } from './common.js';

const Colour = Type.String({
  pattern: '^#[0-9a-fA-F]{6}$',
  'x-rule': 'must be a hex colour such as #1E40AF',
  description: 'Hex colour, `#` and 6 hex digits; one is chosen at creation when none is given',
});
const Description = Type.String({ maxLength: 2000 });
/** A name with at least one visible character; surrounding spaces are trimmed when stored. */
const Name = Type.String({ maxLength: 200, pattern: '\\S', 'x-rule': 'must not be empty or only spaces' });

export const ProjectNode = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdBy: Type.Integer({ description: 'User id' }),
  color: Nullable(Type.String()),
  description: Nullable(Type.String()),
  brandKit: Type.Object({ id: Type.Integer(), name: Type.String() }),
});

export const Project = Type.Object({
  id: Type.Integer(),
  teamId: Type.Integer(),
  name: Type.String(),
  createdBy: Type.Integer({ description: 'User id' }),
  color: Type.String(),
  description: Nullable(Type.String()),
  brandKit: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    teamId: Type.Integer(),
    createdBy: Type.Integer(),
    typography: Type.Array(Typography),
  }),
});

export const ListProjectsQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  ...PageQueryFields,
});

export const ListProjectsResponse = PageOf(ProjectNode);

export const CreateProjectBody = Type.Object(
  {
    name: Name,
    brandKitId: Id,
    color: Type.Optional(Colour),
    description: Type.Optional(Nullable(Description)),
  },
  { additionalProperties: false },
);

export const UpdateProjectBody = Type.Object(
  {
    projectId: Id,
    name: Type.Optional(Name),
    assignedBrandKitId: Type.Optional(Type.With(Id, { description: 'Changes the brand kit of the project' })),
    isBrandKitSelectable: Type.Optional(
      Type.Boolean({ description: 'True when brand kits can be chosen from the editor' }),
    ),
    color: Type.Optional(Colour),
    description: Type.Optional(Nullable(Description)),
  },
  { additionalProperties: false },
);

export const DeleteProjectBody = Type.Object({ projectId: Id }, { additionalProperties: false });

export const ProjectResponse = Ok(Type.Object({ project: Project }));
