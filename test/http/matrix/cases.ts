import { newMsisdn } from '../../support/http.js';
import type { Cast, Who } from './principals.js';

export interface MatrixRequest {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One route of the security matrix: how to build a request about a resource that the owning
 * reseller (`cast.ownerResellerId`) holds, and the status each caller must get.
 */
export interface MatrixCase {
  /** Called once per caller; may create fixtures (fresh ones each call when the route mutates). */
  request: (cast: Cast, who: Who, base: string) => Promise<MatrixRequest>;
  expect: Record<Who, number>;
}

const PUBLIC = {
  none: 200,
  expired: 200,
  forged: 200,
  subscriber: 200,
  otherReseller: 200,
  owner: 200,
  admin: 200,
};
const ANY_TOKEN = {
  none: 401,
  expired: 401,
  forged: 401,
  subscriber: 200,
  otherReseller: 200,
  owner: 200,
  admin: 200,
};

/** Every route of the route table has a row here; the inventory test fails otherwise. */
export const cases: Record<string, MatrixCase> = {
  'POST /api/v1/auth/otp/request': {
    request: async () => ({ path: '', body: { msisdn: newMsisdn() } }),
    expect: PUBLIC,
  },
  'POST /api/v1/auth/otp/verify': {
    // No code was sent to this number: every caller gets the same 401, token or not.
    request: async () => ({ path: '', body: { msisdn: '+2250799999999', otp: '123456' } }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 401,
      otherReseller: 401,
      owner: 401,
      admin: 401,
    },
  },
  'GET /api/v1/auth/session': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'GET /api/v1/forfaits': { request: async () => ({ path: '' }), expect: PUBLIC },
};
