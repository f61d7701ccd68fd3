import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core'), 'utf8');

/** Serious and critical axe-core violations of the page as it is (axe evaluated over CDP, the CSP kept). */
export async function audit(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate('axe.run()')) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
