// Who is calling. The HTTP layer resolves it from the bearer token on every authenticated request; services take it
// as a plain value, so they never depend on the HTTP layer for it.
export interface Actor {
  userId: number;
  teamId: number;
  roleId: number;
  name: string;
  credentialId: number;
}
