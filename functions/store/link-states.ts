// A country's international link as the region sees it from RADIUS traffic: cut or up, and since when.

import { COUNTRIES, type Country } from '../core/currency.js';
import { batchGet, entity } from './entity.js';

/**
 * A country's international link as the region sees it from RADIUS traffic
 * (functions/radius/link-watch.ts): `cut` while most of its hotspots with sessions open stopped
 * reporting at once, `up` again once they report. One item per country the platform sells in.
 */
export interface LinkState {
  country: Country;
  status: 'cut' | 'up';
  /** When the silence began: the last report of the silent sessions, the cut's start. */
  since: string;
  /** When the cut was declared (the sweep's run that saw it). */
  detected_at: string;
  /** Set when the link came back: the sweep accepts the late reports for a grace after it. */
  restored_at?: string;
  /** NAS ids found silent with sessions open when it was last judged. */
  silent_nas: number;
  /** NAS ids of the country heard within a lease when it was last judged. */
  live_nas: number;
  /** The alert raised for this cut, acknowledged when it ends. */
  alert_id?: string;
}

const Link = entity<LinkState>('link_state')({
  key: (l: Pick<LinkState, 'country'>) => ({ pk: `LINK#${l.country}`, sk: 'LINK' }),
});

/** Every country's link state (absent: never cut). */
// Access: BatchGetItem pk=LINK#<country>, sk=LINK, one key per country the platform sells in.
export async function linkStates(): Promise<LinkState[]> {
  const read = await batchGet(COUNTRIES.map((country) => [Link, { country }] as const));
  return read.filter((l): l is LinkState => l !== undefined);
}

/**
 * The usual number of hotspots (NAS ids) with traffic in each country at each UTC hour of the
 * day, learnt by the sweep's judgement of the links (an exponentially weighted mean of what each
 * run saw at that hour): at night a country's few silent hotspots are measured against the
 * night's usual, not against the few still heard.
 */
export interface LinkUsual {
  /** Per country, 24 numbers (one per UTC hour; null until that hour was seen). */
  by_country: Partial<Record<Country, (number | null)[]>>;
  updated_at: string;
}

const Usual = entity<LinkUsual>('link_usual')({
  key: () => ({ pk: 'LINK#USUAL', sk: 'USUAL' }),
});

/** The usual traffic of every country (absent: nothing learnt yet). */
// Access: GetItem pk=LINK#USUAL, sk=USUAL.
export const linkUsual = (): Promise<LinkUsual | undefined> => Usual.get({});

/** Records the usual traffic as learnt now (one writer: the sweep, every 5 minutes). */
// Access: PutItem pk=LINK#USUAL, sk=USUAL.
export const putLinkUsual = (usual: LinkUsual): Promise<boolean> => Usual.put(usual);

/** Records a country's state as judged now (one writer: the sweep, every 5 minutes). */
// Access: PutItem pk=LINK#<country>, sk=LINK.
export const putLinkState = (state: LinkState): Promise<boolean> => Link.put(state);
