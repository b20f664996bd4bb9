import { Type } from 'typebox';
import { Ok } from './common.js';

export const TokenRequest = Type.Object(
  {
    clientId: Type.String({ format: 'uuid', description: 'Client id of an API credential' }),
    clientSecret: Type.String({ minLength: 1, maxLength: 200, description: 'The secret shown once at creation' }),
  },
  { additionalProperties: false },
);

const Token = Type.String({ description: 'JWT to send as `Authorization: Bearer <token>`' });

export const TokenResponse = Type.Object({
  token: Token,
  response: Type.Object({
    token: Token,
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires' }),
  }),
});

export { Ok };
