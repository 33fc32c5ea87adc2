import { randomBytes } from 'node:crypto';
import { AES_GCM_OVERHEAD, openAesGcm, sealAesGcm } from './aes-gcm';

describe('sealAesGcm / openAesGcm', () => {
  const key = randomBytes(32);

  it('opens what it sealed, for the same key and associated data, text or bytes', () => {
    const sealed = sealAesGcm(key, 'whsec_Grüße', 'account-1');
    expect(sealed).toHaveLength(AES_GCM_OVERHEAD + Buffer.byteLength('whsec_Grüße'));
    expect(openAesGcm(key, sealed, 'account-1').toString('utf8')).toBe('whsec_Grüße');
    expect(openAesGcm(key, sealAesGcm(key, Buffer.of(0, 1, 2), 'k'), 'k')).toEqual(Buffer.of(0, 1, 2));
  });

  it('uses a fresh IV each time', () => {
    expect(sealAesGcm(key, 'same', 'a').equals(sealAesGcm(key, 'same', 'a'))).toBe(false);
  });

  it('refuses another key, other associated data, an altered byte or a truncated value', () => {
    const sealed = sealAesGcm(key, 'secret', 'account-1');
    expect(() => openAesGcm(randomBytes(32), sealed, 'account-1')).toThrow();
    expect(() => openAesGcm(key, sealed, 'account-2')).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] = altered[altered.length - 1]! ^ 1;
    expect(() => openAesGcm(key, altered, 'account-1')).toThrow();
    expect(() => openAesGcm(key, sealed.subarray(0, AES_GCM_OVERHEAD - 1), 'account-1')).toThrow(/too short/);
  });
});
