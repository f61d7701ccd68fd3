// The schemas of the routes that name an access code in their path: its top-up and its revocation.

import * as z from 'zod/mini';
import { schema } from '../core/schemas.js';
import { DisconnectStatusSchema } from '../radius/schemas.js';

export const CodeParams = /* @__PURE__ */ schema(() =>
  z.strictObject({
    code: z.string().check(z.regex(/^[A-Za-z0-9 -]{4,32}$/, 'must be an access code')),
  }),
);

export const RevokeResult = /* @__PURE__ */ schema(() =>
  z.object({
    code: z.string(),
    revoked_at: z.string(),
    /** The live sessions of the code, each with its Disconnect-Request's state. */
    disconnects: z.array(z.object({ session_id: z.string(), status: DisconnectStatusSchema })),
  }),
);
