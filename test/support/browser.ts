import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium, driven without a browser download; flags that keep it off the network. */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/** A link as a budget quotes it (CDP `Network.emulateNetworkConditions`). */
export interface Link {
  offline: false;
  latency: number;
  downloadThroughput: number;
  uploadThroughput: number;
}

export type LinkName = '3G' | '2G';

/**
 * The links as the budgets are quoted: 3G 1.6 Mbit/s down, 750 kbit/s up, 150 ms of round
 * trip; 2G (EDGE) 250 kbit/s both ways, 300 ms.
 */
export const LINKS: Record<LinkName, Link> = {
  '3G': { offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 },
  '2G': { offline: false, latency: 300, downloadThroughput: 250_000 / 8, uploadThroughput: 250_000 / 8 },
};

/**
 * Counts the bytes each navigation takes (CDP `Network.loadingFinished` encodedDataLength) and
 * what came from the browser's cache; `blocked` URL patterns are refused (outside the budget).
 * With `link`, the tab has no cache and the link's latency and throughput.
 */
export async function meter(page: Page, options: { blocked?: string[]; link?: Link } = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  if (options.blocked) await cdp.send('Network.setBlockedURLs', { urls: options.blocked });
  if (options.link) {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', options.link);
  }
  let bytes = 0;
  const cached = new Set<string>();
  const urls = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
  });
  cdp.on('Network.requestServedFromCache', (e) => cached.add(urls.get(e.requestId) ?? ''));
  cdp.on('Network.responseReceived', (e) => {
    if (e.response.fromDiskCache) cached.add(e.response.url);
  });
  return {
    take: () => {
      const out = { bytes, cached: [...cached] };
      bytes = 0;
      cached.clear();
      return out;
    },
  };
}

/**
 * A first visit of `url`, then a repeat visit in the same tab (after a blank page), each waited
 * for with `ready`: the bytes of each, and what the repeat took from the cache.
 */
export async function twoVisits(
  page: Page,
  url: string,
  ready: (page: Page) => Promise<void>,
  options: { blocked?: string[] } = {},
) {
  const m = await meter(page, options);
  await page.goto(url, { waitUntil: 'load' });
  await ready(page);
  const first = m.take();
  await page.goto('about:blank');
  m.take();
  await page.goto(url, { waitUntil: 'load' });
  await ready(page);
  return { first, repeat: m.take() };
}

/** Runs `use` in `browser`, or in Debian's chromium launched for it and closed after. */
export async function withBrowser<T>(
  browser: Browser | undefined,
  use: (browser: Browser) => Promise<T>,
): Promise<T> {
  const b = browser ?? (await chromium.launch(CHROMIUM));
  try {
    return await use(b);
  } finally {
    if (!browser) await b.close();
  }
}
