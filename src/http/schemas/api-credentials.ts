import { Type } from 'typebox';
import { Id, Nullable, Ok, PageOf, PageQueryFields, Timestamp } from './common.js';

export const ApiCredential = Type.Object({
  clientId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  userId: Type.Integer({ description: 'The user the credential acts as' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
});

export const ListCredentialsQuery = Type.Object({ ...PageQueryFields });
export const ListCredentialsResponse = PageOf(ApiCredential);

export const CreateCredentialBody = Type.Object(
  {
    userId: Type.Optional(Id),
    name: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const CreateCredentialResponse = Ok(
  Type.Object({
    ...ApiCredential.properties,
    clientSecret: Type.String({ description: 'Shown only in this response; store it now' }),
  }),
);

export const DeleteCredentialBody = Type.Object(
  { clientId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
