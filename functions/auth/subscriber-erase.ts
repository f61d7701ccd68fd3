// POST /api/v1/subscribers/erase: Erase a subscriber: account, OTP, remembered devices deleted; the number taken off every record

import { notFound } from '../core/errors.js';
import { json } from '../core/http.js';
import { eraseSubscriber } from './erase.js';
import { requireMsisdnLoaded } from './otp.js';
import { EraseBody, ErasureResponse } from './schemas.js';
import { sessionEndpoint } from './session-endpoint.js';

/** An admin erases a subscriber (as `npm run admin -- subscribers erase`); 404 once erased. */
export const handler = sessionEndpoint(
  'POST /api/v1/subscribers/erase',
  {
    body: EraseBody,
    errors: ['ERR_MSISDN_INVALID', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    response: { status: 200, schema: ErasureResponse },
  },
  async ({ body }) => {
    const done = await eraseSubscriber(await requireMsisdnLoaded(body.msisdn));
    if (!done) throw notFound('Subscriber');
    return json(200, done);
  },
);
