import type { AppError } from '../../functions/core/errors.js';
import { checkedCustomCss } from '../../functions/network/custom-css.js';

/**
 * What `PUT /branding/{nas_id}` does with a reseller's CSS (functions/network/custom-css.ts):
 * saved as its parser serialises it, or refused with every problem found (its 400's detail).
 */
export function putCss(css: string): { ok: true; css: string } | { ok: false; problems: string } {
  try {
    return { ok: true, css: checkedCustomCss(css) };
  } catch (error) {
    const details = (error as AppError).details;
    if (!details) throw error;
    return { ok: false, problems: details.map((d) => d.message).join('; ') };
  }
}

/** Null when the CSS is saved, else why it is refused (every problem, separated by `; `). */
export const cssProblem = (css: string): string | null => {
  const put = putCss(css);
  return put.ok ? null : put.problems;
};
