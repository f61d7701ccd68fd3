import { endpoint, json } from '../core/http.js';
import { OtpRequestBody } from './schemas.js';
import { requestOtp } from './service.js';

export const handler = endpoint('POST /api/v1/auth/otp/request', { body: OtpRequestBody }, async ({ body }) =>
  json(200, await requestOtp(body.msisdn)),
);
