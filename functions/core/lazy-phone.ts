// The numbering plans loaded by their first use, a chunk of their own beside the bundle.

/**
 * The numbering plans (functions/core/phone.mts) as a lazy chunk beside the bundle: for the
 * paths that check a number rarely, loaded by the first check instead of at start-up.
 */
export const phonePlans = () => import('./phone.mjs');
