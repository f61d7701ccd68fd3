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

export interface PortalFigures {
  /** Bytes on the wire for the first visit (HTML, stylesheet, script; the logo aside). */
  firstLoadBytes: number;
  /** Bytes on the wire when the same browser opens the portal again. */
  repeatLoadBytes: number;
  /** Script and stylesheet names the repeat visit took from the browser's cache. */
  repeatFromCache: string[];
  /** On a 2G link, from navigation start until the phone field works (its script has run). */
  phoneFieldUsableMs2G: number;
}

// A 2G (EDGE) link as the figures are quoted: 300 ms of latency, 250 kbit/s both ways.
const TWO_G = {
  offline: false,
  latency: 300,
  downloadThroughput: 250_000 / 8,
  uploadThroughput: 250_000 / 8,
};

/** Counts the bytes each navigation takes (CDP `Network.loadingFinished` encodedDataLength). */
async function meter(page: Page, logoPattern: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // The logo is the reseller's, on its own host: outside the budget, and not reachable here.
  await cdp.send('Network.setBlockedURLs', { urls: [logoPattern] });
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
    cdp,
    take: () => {
      const out = { bytes, cached: [...cached] };
      bytes = 0;
      cached.clear();
      return out;
    },
  };
}

/**
 * The captive portal's weight and speed as a subscriber's phone meets them: the first visit's
 * bytes, a repeat visit's bytes (script and stylesheet from the cache), and how long a 2G link
 * takes to give a usable phone field. `npm run bench` reports these.
 */
export async function measurePortal(
  baseUrl: string,
  nasId: string,
  options: { browser?: Browser; logoPattern?: string } = {},
): Promise<PortalFigures> {
  const browser = options.browser ?? (await chromium.launch(CHROMIUM));
  const logoPattern = options.logoPattern ?? 'https://*';
  const url = `${baseUrl}/portal/${encodeURIComponent(nasId)}`;
  try {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    const m = await meter(page, logoPattern);
    await page.goto(url, { waitUntil: 'load' });
    const first = m.take();
    await page.goto('about:blank');
    m.take();
    await page.goto(url, { waitUntil: 'load' });
    const repeat = m.take();
    await context.close();

    const slow = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const slowPage = await slow.newPage();
    const s = await meter(slowPage, logoPattern);
    await s.cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await s.cdp.send('Network.emulateNetworkConditions', TWO_G);
    await slowPage.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await slowPage.locator('#msisdn').waitFor({ state: 'visible' });
    // Deferred scripts run before DOMContentLoaded: from then on the form answers.
    // A string: this project's TypeScript has no DOM types, the page runs it as it is.
    const usable = (await slowPage.evaluate(
      "Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd)",
    )) as number;
    await slow.close();
    return {
      firstLoadBytes: first.bytes,
      repeatLoadBytes: repeat.bytes,
      repeatFromCache: repeat.cached.filter((u) => u.includes('/portal/assets/')),
      phoneFieldUsableMs2G: usable,
    };
  } finally {
    if (!options.browser) await browser.close();
  }
}
