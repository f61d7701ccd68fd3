// The forfaits' request and answer schemas: the platform's on sale, and a reseller's own (their bounds and order).

import * as z from 'zod/mini';
import { pageQuery, pageSchema, schema, uuid } from '../core/schemas.js';
import { TIME_COUNTS } from '../store/forfaits.js';

const ForfaitSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    price_fcfa: z.int(),
    duration_hours: z.int(),
    /** 0: no data cap. */
    data_limit_mb: z.int(),
    cir_kbps: z.int(),
    mir_kbps: z.int(),
    /** Devices that may be online at once with one purchase; 1 when absent. */
    max_devices: z.optional(z.int().check(z.gte(1), z.lte(10))),
    /** When the duration runs: from the first login (absent) or only while connected. */
    time_counts: z.optional(z.enum(TIME_COUNTS)),
  }),
);

/**
 * `nas_id`: the platform's forfaits and, first, those of that hotspot's reseller on sale there
 * (what its portal offers); absent, the platform's only.
 */
export const ForfaitsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ ...pageQuery, nas_id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))) }),
);
export const ForfaitsPage = /* @__PURE__ */ schema(() => pageSchema(ForfaitSchema));

// ---- a reseller's own forfaits ----

/** A forfait's name as subscribers read it: no markup, no control or bidirectional character. */
const forfaitName = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(60),
    z.refine(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses.
      (s) => !/[<>\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/.test(s),
      'must not contain < or >, nor control or bidirectional formatting characters',
    ),
  ),
);
const ownFields = /* @__PURE__ */ schema(() => ({
  name: forfaitName,
  price_fcfa: z.int().check(z.gte(1), z.lte(10_000_000)),
  duration_hours: z.int().check(z.gte(1), z.lte(8760)),
  data_limit_mb: z.int().check(z.gte(0), z.lte(10_000_000)),
  cir_kbps: z.int().check(z.gte(0), z.lte(1_000_000)),
  mir_kbps: z.int().check(z.gte(64), z.lte(1_000_000)),
  max_devices: z.int().check(z.gte(1), z.lte(10)),
  time_counts: z.enum(TIME_COUNTS),
  /** Empty or absent: all of the reseller's hotspots. */
  nas_ids: z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(50)),
  hidden: z.boolean(),
}));
const { name, price_fcfa, duration_hours, data_limit_mb, cir_kbps, mir_kbps, ...optionalOwn } = ownFields;
const atMostGuaranteed = (f: { cir_kbps?: number; mir_kbps?: number }) =>
  f.cir_kbps === undefined || f.mir_kbps === undefined || f.cir_kbps <= f.mir_kbps;

export const OwnForfaitQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()) }),
);
export const OwnForfaitParams = /* @__PURE__ */ schema(() => z.strictObject({ id: uuid() }));
export const OwnForfaitCreateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      name,
      price_fcfa,
      duration_hours,
      data_limit_mb,
      cir_kbps,
      mir_kbps,
      max_devices: z.optional(optionalOwn.max_devices),
      time_counts: z.optional(optionalOwn.time_counts),
      nas_ids: z.optional(optionalOwn.nas_ids),
      hidden: z.optional(optionalOwn.hidden),
    })
    .check(z.refine(atMostGuaranteed, { message: 'cir_kbps must not exceed mir_kbps', path: ['cir_kbps'] })),
);
export const OwnForfaitUpdateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      name: z.optional(name),
      price_fcfa: z.optional(price_fcfa),
      duration_hours: z.optional(duration_hours),
      data_limit_mb: z.optional(data_limit_mb),
      cir_kbps: z.optional(cir_kbps),
      mir_kbps: z.optional(mir_kbps),
      max_devices: z.optional(optionalOwn.max_devices),
      time_counts: z.optional(optionalOwn.time_counts),
      nas_ids: z.optional(optionalOwn.nas_ids),
      hidden: z.optional(optionalOwn.hidden),
      /** The place in the reseller's list (ascending; ties by id). */
      position: z.optional(z.int().check(z.gte(0), z.lte(999_999))),
    })
    .check(
      z.refine((b) => Object.keys(b).length > 0, 'nothing to change'),
      z.refine(atMostGuaranteed, { message: 'cir_kbps must not exceed mir_kbps', path: ['cir_kbps'] }),
    ),
);
export const OwnForfaitSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    price_fcfa: z.int(),
    duration_hours: z.int(),
    data_limit_mb: z.int(),
    cir_kbps: z.int(),
    mir_kbps: z.int(),
    max_devices: z.int(),
    time_counts: z.enum(TIME_COUNTS),
    nas_ids: z.array(z.string()),
    position: z.int(),
    hidden: z.boolean(),
    updated_at: z.string(),
  }),
);
export const OwnForfaitsList = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(OwnForfaitSchema),
    bounds: z.object({
      min_price_fcfa: z.int(),
      max_price_fcfa: z.int(),
      max_duration_hours: z.int(),
      max_count: z.int(),
    }),
  }),
);
