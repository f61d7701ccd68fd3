// The canary's DNS check: a blocked name answers the sinkhole's address.

import { type CheckResult, fail, timed } from './types.js';

export interface DnsTarget {
  /** `host`, `host:port` or `[v6]:port`. */
  server: string;
  /** A name the blocklist redirects to the sinkhole. */
  name: string;
  sinkholeIp: string;
  timeoutMs: number;
}

const REASONS: Record<string, string> = {
  ENOTFOUND: 'nxdomain',
  ENODATA: 'no_data',
  ECONNREFUSED: 'refused',
  EREFUSED: 'refused',
  ESERVFAIL: 'servfail',
  ETIMEOUT: 'timeout',
  ECANCELLED: 'timeout',
};

/**
 * `dns_sinkhole`: asks the configured resolver itself (a resolver of our own, not the
 * system's, so /etc/resolv.conf and caches play no part) for a blocked test name, and passes
 * only when the answer holds the sinkhole IP.
 */
export function checkDnsSinkhole(target: DnsTarget): Promise<CheckResult> {
  return timed('dns_sinkhole', target.timeoutMs, async (signal) => {
    if (!target.server || !target.name || !target.sinkholeIp) {
      fail('not_configured', 'CANARY_DNS_SERVER, CANARY_DNS_TEST_NAME and CANARY_SINKHOLE_IP are required');
    }
    // node:dns is loaded by the first run (its resolver channel also slows the process's exit).
    const { Resolver } = (await import('node:dns')).promises;
    const resolver = new Resolver({ timeout: target.timeoutMs, tries: 1 });
    resolver.setServers([target.server]);
    signal.addEventListener('abort', () => resolver.cancel(), { once: true });
    let answers: string[];
    try {
      answers = await resolver.resolve4(target.name);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'error';
      return fail(REASONS[code] ?? code.toLowerCase(), `${target.name}: ${code}`);
    }
    if (!answers.includes(target.sinkholeIp)) {
      fail(
        'wrong_answer',
        `${target.name} answered ${answers.join(', ') || 'nothing'}, not ${target.sinkholeIp}`,
      );
    }
  });
}
