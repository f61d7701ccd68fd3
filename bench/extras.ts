import type { DdbProbe } from '../test/support/ddb-instrument.js';
import type { BenchContext } from './scenarios.js';

export interface ExtraFigure {
  name: string;
  lines: string[];
  [figure: string]: unknown;
}

/** Figures specific to an area (added as the areas land). */
export async function extraFigures(_ctx: BenchContext, _probe: DdbProbe): Promise<ExtraFigure[]> {
  return [];
}
