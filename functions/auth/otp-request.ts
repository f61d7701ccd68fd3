import { endpoint, json } from '../core/http.js';
import { OtpRequestBody, OtpRequestResponse } from './schemas.js';
import { requestOtp } from './service.js';

export const handler = endpoint(
  'POST /api/v1/auth/otp/request',
  { body: OtpRequestBody, response: { status: 200, schema: OtpRequestResponse } },
  async ({ body }) => json(200, await requestOtp(body.msisdn)),
);
