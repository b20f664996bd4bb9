// Team roles and what each may do (SPEC §2). Routes name a permission; this table is the only place that decides.

export const ROLES = [
  { id: 1, name: 'Owner', description: 'Everything an Admin can do; cannot be deleted or demoted by an Admin.' },
  { id: 2, name: 'Admin', description: 'Manages team users, roles, webhooks, API credentials and every project.' },
  {
    id: 3,
    name: 'Editor',
    description: 'Creates, changes and deletes designs, folders, versions, projects and brand kits.',
  },
  { id: 4, name: 'Viewer', description: 'Reads what it can see, exports designs and creates share links.' },
] as const;

export type RoleId = (typeof ROLES)[number]['id'];
export const OWNER: RoleId = 1;
export const ADMIN: RoleId = 2;
export const EDITOR: RoleId = 3;
export const VIEWER: RoleId = 4;

export function roleById(id: number) {
  return ROLES.find((r) => r.id === id);
}

/** Case-insensitive lookup of a role by name, as POST /v1/users takes it. */
export function roleByName(name: string) {
  const wanted = name.trim().toLowerCase();
  return ROLES.find((r) => r.name.toLowerCase() === wanted);
}

/** Every permission a route can require, with the weakest role that holds it (a lower id is a stronger role). */
export const PERMISSIONS = {
  /** Every GET of what the caller can see. */
  read: VIEWER,
  /** POST /v1/export of a visible design. */
  'export:create': VIEWER,
  'shareLink:create': VIEWER,
  /** Designs, folders, versions, projects the caller belongs to, brand kits and assets, export-with-changes. */
  'content:write': EDITOR,
  /** Team users, roles, webhooks, API credentials, every project of the team. */
  'team:manage': ADMIN,
} as const satisfies Record<string, RoleId>;

export type Permission = keyof typeof PERMISSIONS;

export function can(roleId: number, permission: Permission): boolean {
  return roleId <= PERMISSIONS[permission];
}

/** Owners and Admins see every project of the team; Editors and Viewers only the ones they are users of. */
export function seesEveryProject(roleId: number): boolean {
  return roleId <= ADMIN;
}
