// The canary's HTTP checks: the API's health, the captive portal's page, a data download.

import { PublicStatusSchema } from '../schemas.js';
import { type CheckResult, fail, timed } from './types.js';

export interface ApiTarget {
  url: string;
  timeoutMs: number;
}
export interface PortalTarget {
  url: string;
  marker: string;
  timeoutMs: number;
}
export interface DataTarget {
  url: string;
  /** The file's exact size in bytes. */
  bytes: number;
  timeoutMs: number;
}

const MAX_TEXT_BYTES = 2 * 1024 * 1024;

async function get(url: string, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, {
      signal,
      redirect: 'follow',
      headers: { 'user-agent': 'hotspot-canary/1', 'cache-control': 'no-cache' },
    });
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string } }).cause;
    return fail('unreachable', `${url}: ${cause?.code ?? (error as Error).message}`);
  }
}

/** Reads at most `limit` bytes of a body as text (a portal page is small; anything else is cut). */
async function readText(res: Response, limit = MAX_TEXT_BYTES): Promise<string> {
  if (!res.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.byteLength;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `api_health`: the API's public status URL answers 200 with a body of the documented shape. */
export function checkApiHealth(target: ApiTarget): Promise<CheckResult> {
  return timed('api_health', target.timeoutMs, async (signal) => {
    if (!target.url) fail('not_configured', 'CANARY_API_URL is required');
    const res = await get(target.url, signal);
    const text = await readText(res);
    if (res.status !== 200) fail(`http_${res.status}`, `${target.url} answered ${res.status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail('invalid_body', `${target.url} did not answer JSON`);
    }
    if (!PublicStatusSchema.safeParse(body).success) {
      fail('invalid_body', `${target.url} answered JSON that is not a status document`);
    }
  });
}

/** `portal_access`: the captive portal's page answers 200 and carries the expected marker. */
export function checkPortal(target: PortalTarget): Promise<CheckResult> {
  return timed('portal_access', target.timeoutMs, async (signal) => {
    if (!target.url || !target.marker)
      fail('not_configured', 'CANARY_PORTAL_URL and CANARY_PORTAL_MARKER are required');
    const res = await get(target.url, signal);
    const text = await readText(res);
    if (res.status !== 200) fail(`http_${res.status}`, `${target.url} answered ${res.status}`);
    if (!text.includes(target.marker))
      fail('marker_missing', `${target.url} does not contain the portal marker`);
  });
}

/**
 * `data_transfer`: downloads a file of known size to the last byte within the deadline and
 * records the throughput. A connection cut early, a short body or a wrong size fails.
 */
export function checkDataTransfer(target: DataTarget): Promise<CheckResult> {
  return timed('data_transfer', target.timeoutMs, async (signal) => {
    if (!target.url || target.bytes <= 0)
      fail('not_configured', 'CANARY_DATA_URL and CANARY_DATA_BYTES are required');
    const started = performance.now();
    const res = await get(target.url, signal);
    if (res.status !== 200) {
      await res.body?.cancel();
      fail(`http_${res.status}`, `${target.url} answered ${res.status}`);
    }
    const announced = res.headers.get('content-length');
    if (announced !== null && Number(announced) !== target.bytes) {
      await res.body?.cancel();
      fail('size_mismatch', `${target.url} announces ${announced} bytes, expected ${target.bytes}`);
    }
    let received = 0;
    try {
      if (res.body) {
        for await (const chunk of res.body) {
          received += chunk.byteLength;
          if (received > target.bytes) break;
        }
      }
    } catch (error) {
      if (signal.aborted) throw error;
      fail('truncated', `connection closed after ${received} of ${target.bytes} bytes`);
    }
    if (received < target.bytes) fail('truncated', `received ${received} of ${target.bytes} bytes`);
    if (received > target.bytes) fail('size_mismatch', `received more than ${target.bytes} bytes`);
    const ms = Math.max(1, performance.now() - started);
    return { throughput_kbps: Math.round((received * 8) / ms) };
  });
}
