import { emailTexts } from '../channels/email-texts';
import { consentWords, languageOfAcceptLanguage, TEXT_LANGUAGES, textLanguage, textsFor, widgetTexts } from './texts';

describe('chat texts', () => {
  it('has every word in en, de, fr and es', () => {
    expect(TEXT_LANGUAGES.sort()).toEqual(['de', 'en', 'es', 'fr']);
    const keys = Object.keys(textsFor('en')).sort();
    for (const lang of TEXT_LANGUAGES) {
      const texts = textsFor(lang);
      expect(Object.keys(texts).sort()).toEqual(keys);
      for (const value of Object.values(texts)) expect(value).not.toBe('');
    }
  });

  it('falls back to English for other languages and reads a region tag as its language', () => {
    expect(textsFor('pt-BR').lang).toBe('en');
    expect(textsFor('de-CH').lang).toBe('de');
    expect(widgetTexts(undefined).lang).toBe('en');
  });

  it('the consent words are those the widget shows', () => {
    expect(consentWords('email', 'fr')).toBe(widgetTexts('fr').reply_email_consent);
    expect(consentWords('whatsapp', 'es')).toBe(widgetTexts('es').reply_whatsapp_consent);
  });

  it('picks the first Accept-Language the chat has words for', () => {
    expect(languageOfAcceptLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(languageOfAcceptLanguage('pt-BR,fr;q=0.5')).toBe('fr');
    expect(languageOfAcceptLanguage('ja')).toBe('en');
    expect(languageOfAcceptLanguage(undefined)).toBe('en');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__PROTO__-x'])(
    'takes %s for an unknown language: English, with every word',
    (name) => {
      expect(textLanguage(name)).toBe('en');
      expect(textsFor(name)).toEqual(textsFor('en'));
      expect(widgetTexts(name)).toEqual(widgetTexts('en'));
      expect(languageOfAcceptLanguage(name)).toBe('en');
      expect(languageOfAcceptLanguage(`${name},de;q=0.5`)).toBe('de');
      expect(emailTexts(name).lang).toBe('en');
    },
  );
});
