import { detectLanguage, languageOfTag } from './language';

describe('detectLanguage', () => {
  it.each([
    ['english', 'You can return your shoes within 30 days if they are unworn and in the box.'],
    ['german', 'Sie können Ihre Schuhe innerhalb von 30 Tagen kostenlos zurücksenden, wenn sie nicht getragen wurden.'],
    ['french', 'Vous pouvez retourner vos chaussures dans les 30 jours si elles ne sont pas portées.'],
    ['spanish', 'Usted puede devolver sus zapatos hasta 30 días después, si no están usados y con la caja.'],
    ['italian', 'Le scarpe possono essere restituite entro 30 giorni, anche se sono state provate nel negozio.'],
    ['portuguese', 'Você pode devolver os sapatos em até 30 dias, se não foram usados e estão na caixa.'],
    ['dutch', 'U kunt uw schoenen binnen 30 dagen terugsturen als ze niet gedragen zijn en in de doos zitten.'],
  ])('recognises %s', (language, text) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it.each([
    ['english', 'Bike warranty\nEvery bike has a five-year warranty on its frame.'],
    ['english', 'Opening hours: 9–17, Monday to Saturday.'],
    ['german', 'Haustiere\nHunde sind willkommen, Katzen leider nicht.'],
    ['french', "Wi-Fi gratuit dans tout l'appartement."],
    ['spanish', 'Aparcamiento gratuito delante de la casa.'],
  ])('tells a short text without enough function words by its frequent words: %s', (language, text) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('says simple (no stemming) when neither its function words nor its frequent words tell', () => {
    expect(detectLanguage('9–17, 10:00–12:30')).toBe('simple');
    expect(detectLanguage('Brompton M6L')).toBe('simple');
    expect(detectLanguage('東京の店舗は午前10時から営業しています。')).toBe('simple');
  });

  it('says simple on a tie between two languages', () => {
    expect(detectLanguage('the and der und')).toBe('simple');
  });
});

describe('languageOfTag', () => {
  it.each([
    ['en', 'english'],
    ['en-GB', 'english'],
    ['DE-ch', 'german'],
    ['pt-BR', 'portuguese'],
    ['nl', 'dutch'],
    ['ja', 'simple'],
    ['sv-SE', 'simple'],
    ['__proto__', 'simple'],
    ['constructor', 'simple'],
    ['toString-x', 'simple'],
    ['hasOwnProperty', 'simple'],
    ['valueOf', 'simple'],
  ])('%s → %s', (tag, language) => {
    expect(languageOfTag(tag)).toBe(language);
  });
});
