// Routes of the contract whose behaviour lands with a later issue are declared now, with their real schemas (so the
// OpenAPI document is complete), and answer 501 NOT_IMPLEMENTED in the error envelope until then.
import { AppError } from '../../errors.js';

export function notImplemented(what: string): never {
  throw new AppError('NOT_IMPLEMENTED', `${what} is declared in the API contract but not served by this version yet`);
}
