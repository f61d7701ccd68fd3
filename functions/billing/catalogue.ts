// The platform's forfaits seeded in a new table (the local server, a new stage).

import type { Forfait } from '../store/forfaits.js';

/**
 * The seeded catalogue: typical West African hotspot offers, in FCFA. Fixed ids so that seeding
 * twice changes nothing.
 */
export const SEED_FORFAITS: readonly Forfait[] = [
  {
    id: '5f0c1a2e-0001-4a6b-9c10-000000000001',
    name: 'Pass 1 heure',
    price_fcfa: 100,
    duration_hours: 1,
    data_limit_mb: 300,
    cir_kbps: 512,
    mir_kbps: 2048,
  },
  {
    id: '5f0c1a2e-0002-4a6b-9c10-000000000002',
    name: 'Pass Nuit',
    price_fcfa: 200,
    duration_hours: 10,
    data_limit_mb: 2048,
    cir_kbps: 512,
    mir_kbps: 4096,
  },
  {
    id: '5f0c1a2e-0003-4a6b-9c10-000000000003',
    name: 'Pass Jour',
    price_fcfa: 300,
    duration_hours: 24,
    data_limit_mb: 1024,
    cir_kbps: 1024,
    mir_kbps: 4096,
  },
  {
    id: '5f0c1a2e-0004-4a6b-9c10-000000000004',
    name: 'Pass 3 jours',
    price_fcfa: 750,
    duration_hours: 72,
    data_limit_mb: 3072,
    cir_kbps: 1024,
    mir_kbps: 4096,
  },
  {
    id: '5f0c1a2e-0005-4a6b-9c10-000000000005',
    name: 'Pass Semaine',
    price_fcfa: 1500,
    duration_hours: 168,
    data_limit_mb: 7168,
    cir_kbps: 1024,
    mir_kbps: 6144,
  },
  {
    id: '5f0c1a2e-0006-4a6b-9c10-000000000006',
    name: 'Pass Mois',
    price_fcfa: 5000,
    duration_hours: 720,
    data_limit_mb: 30720,
    cir_kbps: 2048,
    mir_kbps: 8192,
  },
  {
    id: '5f0c1a2e-0007-4a6b-9c10-000000000007',
    name: 'Pass Mois Illimité Nuit',
    price_fcfa: 3500,
    duration_hours: 720,
    data_limit_mb: 20480,
    cir_kbps: 1024,
    mir_kbps: 6144,
  },
];
