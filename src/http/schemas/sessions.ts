import { Type } from 'typebox';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../services/session.service.js';
import { Id, Nullable, Ok, Timestamp } from './common.js';

const Password = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters; stored only as a scrypt hash`,
});
export const InviteToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'One-time invite token' });

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  },
  { additionalProperties: false },
);

export const SessionUser = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  teamId: Type.Integer(),
  role: Type.Object({ id: Type.Integer(), name: Type.String() }),
});

export const SessionResponse = Ok(
  Type.Object({
    user: SessionUser,
    csrfToken: Nullable(
      Type.String({ description: 'Send as X-CSRF-Token on state-changing requests authenticated by the cookie' }),
    ),
  }),
);

export const InviteBody = Type.Object({ userId: Id }, { additionalProperties: false });
const InviteLink = Type.Object({
  inviteUrl: Type.String({ description: 'One-time link where the user sets a password' }),
  expiresAt: Timestamp,
});
export const InviteResponse = Type.Object({
  inviteUrl: InviteLink.properties.inviteUrl,
  expiresAt: Timestamp,
  response: InviteLink,
});

export const InviteInfoResponse = Ok(Type.Object({ email: Type.String(), name: Type.String() }));
export const AcceptInviteBody = Type.Object(
  { token: InviteToken, password: Password },
  { additionalProperties: false },
);
