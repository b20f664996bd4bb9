// TypeBox building blocks shared by the API's schemas (http/schemas/) and the schemas that live below it (a webhook
// delivery, an export): one definition of a timestamp, an id and "or null".
import { type TSchema, Type } from 'typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
