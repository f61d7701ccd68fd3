import * as z from 'zod/mini';
import { pageQuery, pageSchema } from '../core/schemas.js';

export const ForfaitSchema = z.object({
  id: z.string(),
  name: z.string(),
  price_fcfa: z.int(),
  duration_hours: z.int(),
  data_limit_mb: z.int(),
  cir_kbps: z.int(),
  mir_kbps: z.int(),
});

export const ForfaitsQuery = z.strictObject({ ...pageQuery });
export const ForfaitsPage = pageSchema(ForfaitSchema);
