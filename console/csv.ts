import { api } from './api.js';
import { lang } from './i18n.js';

/**
 * Fetches a CSV export in the reader's language (the API writes French for a French
 * spreadsheet: `;`, day-first dates; English with `,`) and saves it as `name`. The export needs
 * the session token, so it is fetched, then saved. The byte-order mark the API sends is put
 * back: reading the answer as text drops it, and without it a spreadsheet reads "Côte" as
 * "CÃ´te".
 */
export async function saveCsv(path: string, name: string): Promise<boolean> {
  const a = await api<string>('GET', `${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
  if (a.status !== 200) return false;
  const text = String(a.body).replace(/^\ufeff/, '');
  const url = URL.createObjectURL(new Blob(['\ufeff', text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return true;
}
