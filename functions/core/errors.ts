// Stable error codes, the one table that maps each to an HTTP status, and the error body a client sees.

/** Stable error codes and the one table that maps each to an HTTP status. */
export const ERROR_STATUS = {
  ERR_VALIDATION: 400,
  /** A reseller's forfait outside the operator's bounds (price, duration). */
  ERR_FORFAIT_OUT_OF_BOUNDS: 400,
  ERR_MSISDN_INVALID: 400,
  ERR_UNAUTHENTICATED: 401,
  /** A payment provider's notification whose signature does not verify. */
  ERR_SIGNATURE_INVALID: 401,
  /** A payment provider's notification signed too long ago (replay window). */
  ERR_SIGNATURE_STALE: 401,
  ERR_OTP_INVALID: 401,
  ERR_OTP_EXPIRED: 401,
  ERR_FORBIDDEN: 403,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_CONFLICT: 409,
  ERR_DUPLICATE_NAS_ID: 409,
  ERR_VLAN_POOL_EXHAUSTED: 409,
  /** An Idempotency-Key already used for another request body. */
  ERR_IDEMPOTENCY_MISMATCH: 409,
  /** A provider notification already applied to that payment. */
  ERR_NOTIFICATION_REPLAYED: 409,
  /** A payment notification or confirmation for another amount than the payment's. */
  ERR_AMOUNT_MISMATCH: 409,
  /** A payment notification or confirmation in another currency than the payment's. */
  ERR_CURRENCY_MISMATCH: 409,
  /** An agent's sale the price of which its remaining float does not cover. */
  ERR_AGENT_FLOAT_EXHAUSTED: 409,
  /** An agent's sale from a stock of codes of that forfait that is used up. */
  ERR_AGENT_STOCK_EXHAUSTED: 409,
  /** Cash recorded beyond what the agent owes its reseller. */
  ERR_AGENT_CASH_OVER_OWED: 409,
  /** A top-up of a code that is revoked, a voucher never sold, or unused past its use-by date. */
  ERR_CODE_NOT_LIVE: 409,
  /** An agent's handover undone after its window (functions/store/handovers.ts) or undone already. */
  ERR_UNDO_TOO_LATE: 409,
  /** An agent's sale undone once its code was used (a login): the sale stands. */
  ERR_CODE_IN_USE: 409,
  /** A device remembered beyond the forfait's `max_devices` for one code. */
  ERR_DEVICE_LIMIT: 409,
  /** A reseller with as many own forfaits as the operator allows (OWN_FORFAITS_MAX). */
  ERR_FORFAIT_LIMIT: 409,
  /** A PPPoE user name another subscriber holds (user names are unique platform-wide). */
  ERR_USERNAME_TAKEN: 409,
  /** A PPPoE renewal for a period sold meanwhile (a second click, another cashier, a payment). */
  ERR_PERIOD_SOLD: 409,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_RATE_LIMITED: 429,
  ERR_INTERNAL: 500,
  /** A RADIUS server's bearer secret is wrong: 5xx so that FreeRADIUS fails the request instead of rejecting the user. */
  ERR_RADIUS_CREDENTIALS: 502,
  ERR_UPSTREAM: 502,
  ERR_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error the client may see: its code, message and details are safe to return. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const notFound = (what = 'Resource'): AppError => new AppError('ERR_NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'You may not access this resource'): AppError =>
  new AppError('ERR_FORBIDDEN', message);
export const validation = (message: string, details?: ErrorDetail[]): AppError =>
  new AppError('ERR_VALIDATION', message, details ? { details } : {});

/** Body of every error response: `{"error": {"code", "message", "details"?}}`. */
export function errorBody(error: AppError): {
  error: { code: string; message: string; details?: ErrorDetail[] };
} {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

/** DynamoDB (or any AWS service) refusing for load or being down: the client may retry. */
const BUSY = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
  'TransactionInProgressException',
  // The SDK's own request timeout (a frozen dependency), and an aborted request.
  'TimeoutError',
  'RequestTimeout',
  'AbortError',
  // The Parameters and Secrets extension unreachable, late or failing (functions/core/secrets.ts).
  'SecretsUnavailable',
]);
/** Network failures under the SDK: the dependency is unreachable, not the request wrong. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

/** True when the error says "a dependency is busy or unreachable": answer 503, retry later. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; cause?: unknown } | null;
  if (!e) return false;
  if ((e.name && BUSY.has(e.name)) || (e.code && UNREACHABLE.has(e.code))) return true;
  return e.cause !== undefined && e.cause !== error && isUnavailable(e.cause);
}

/** Maps anything thrown to an AppError; unknown errors become a bare 500 with no internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isUnavailable(error)) {
    return new AppError(
      'ERR_UNAVAILABLE',
      'The service is busy or a dependency is unreachable, try again shortly',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  return new AppError('ERR_INTERNAL', 'Internal error');
}
