import { describe, expect, it } from 'vitest';
import { smsText } from '../../functions/auth/otp.js';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { accessCodeText } from '../../functions/billing/sms-texts.js';
import { gsm7Segments, toGsm7 } from '../../functions/core/gsm7.js';

const NAMES = [
  ...SEED_FORFAITS.map((f) => f.name),
  // What a reseller may name a forfait: accents outside GSM-7, typographic quotes, a long name.
  'Forfait Élite Maïs Côte d’Ivoire — Nuit',
  'Pass Illimité Week-end 7 jours très très très long pour le maquis du carrefour',
];

describe('the SMS texts', () => {
  it.each(NAMES)('with the forfait %s are GSM-7 and one 160-character segment', (name) => {
    const long = 'Maquis du Grand Carrefour de Yopougon Sideci';
    for (const text of [
      smsText('012345'),
      accessCodeText('ABCDEFGHJK', { forfaitName: name }),
      accessCodeText('ABCDEFGHJKMN', {
        forfaitName: name,
        offer: { duration_hours: 720, data_limit_mb: 30_720 },
        hotspot: long,
      }),
    ]) {
      // GSM-7 through and through: folding to GSM-7 changes nothing.
      expect(toGsm7(text), text).toBe(text);
      expect(text.length, text).toBeLessThanOrEqual(160);
    }
  });

  it('name the hotspot, the code as cards group it, the validity and "données illimitées" for a forfait without a cap', () => {
    expect(
      accessCodeText('ABCDEFGHJK', {
        forfaitName: 'Pass Soirée',
        offer: { duration_hours: 168, data_limit_mb: 0 },
        hotspot: 'Chez Awa',
      }),
    ).toBe(
      'Chez Awa: votre code WiFi ABCD EFGH JK. Pass Soirée, 7 jours, données illimitées. Tapez-le sur la page du hotspot.',
    );
    expect(
      accessCodeText('ABCDEFGHJK', {
        forfaitName: 'Pass 1 heure',
        offer: { duration_hours: 1, data_limit_mb: 300 },
      }),
    ).toBe(
      'Votre code WiFi ABCD EFGH JK. Pass 1 heure, 1 h, 300 Mo de données. Tapez-le sur la page du hotspot.',
    );
  });

  it('keep the GSM-7 accents and fold the others', () => {
    expect(toGsm7('Illimité Nuit')).toBe('Illimité Nuit');
    expect(toGsm7('Maïs Côte d’Ivoire — ç')).toBe("Mais Cote d'Ivoire - c");
    expect(toGsm7('Pass 🚀')).toBe('Pass ?');
    expect(toGsm7('« Journée » ✓')).toBe('" Journée " ?');
    expect(toGsm7('Côte')).not.toBe('Côte');
  });

  it('count 160 characters in one part and 153 a part beyond', () => {
    expect(gsm7Segments('a'.repeat(160))).toBe(1);
    expect(gsm7Segments('a'.repeat(161))).toBe(2);
    expect(gsm7Segments('a'.repeat(307))).toBe(3);
  });
});

describe("a forfait's name in a code text (issue 40, info)", () => {
  it.each([
    'Appelez le 07 08 09 10 11',
    'Pass +2250708091011',
    'Promo www.gagnez.ci',
    'Offre gagnez.ci',
    'Voir bit.ly/abc',
    'https://x',
    'Composez *144*1#',
    'Ecrivez a moi@exemple.com',
  ])('leaves out %s, which could pass as a number or a link', (name) => {
    const text = accessCodeText('ABCDEFGHJK', name);
    expect(text).toBe('Votre code WiFi ABCD EFGH JK. Tapez-le sur la page du hotspot.');
    // A reseller's business name is its free text too: left out the same way.
    expect(accessCodeText('ABCDEFGHJK', { forfaitName: 'Pass 1 heure', hotspot: name })).toBe(
      'Votre code WiFi ABCD EFGH JK. Pass 1 heure. Tapez-le sur la page du hotspot.',
    );
  });

  it.each([
    ['Pass 1 heure', 'Pass 1 heure'],
    ['Pass 1000 Mo', 'Pass 1000 Mo'],
    ['Forfait Élite Maïs Côte d’Ivoire — Nuit', "Forfait Élite Mais Cote d'Ivoire - Nuit"],
  ])('carries %s as %s', (name, carried) => {
    expect(accessCodeText('ABCDEFGHJK', name)).toBe(
      `Votre code WiFi ABCD EFGH JK. ${carried}. Tapez-le sur la page du hotspot.`,
    );
  });
});
