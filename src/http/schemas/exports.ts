// The export routes' schemas: the bodies and the export itself come from formats/export.schema.ts (composed from the
// format registry, below http/); here they get the answer envelope.
import { Type } from 'typebox';
import { Export } from '../../formats/export.schema.js';
import { Ok } from './common.js';

export * from '../../formats/export.schema.js';

export const CreateExportResponse = Ok(Type.Object({ export: Export }));
export const GetExportResponse = Ok(Export);
