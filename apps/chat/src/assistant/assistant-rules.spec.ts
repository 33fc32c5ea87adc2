import { KnowledgeSearchResult } from '@svc/contracts';
import { textsFor } from '../texts/texts';
import { asksForPerson, extractiveReply, GOOD_MATCH_SCORE, goodMatch, searchQuestion, writtenReply } from './assistant-rules';

const result = (over: Partial<KnowledgeSearchResult> = {}): KnowledgeSearchResult => ({
  external_ref: 'returns',
  heading: 'Returns and refunds',
  url: 'https://shop.example/returns',
  passage: 'You can return any item within 30 days of delivery.',
  score: 0.4,
  ...over,
});

describe('assistant rules', () => {
  it.each([
    'talk to a person',
    'Can I speak with a human please?',
    'I want to chat with someone',
    'human',
    'Agent!',
    'real person please',
    'Ich möchte mit einem Menschen sprechen',
    'Kann ich mit jemandem sprechen?',
    'Je voudrais parler à une personne',
    "parler avec quelqu'un",
    'Quiero hablar con una persona',
    'hablar con un agente',
  ])('"%s" asks for a person', (text) => {
    expect(asksForPerson(text)).toBe(true);
  });

  it.each([
    'How do I return an item?',
    'Is there a human-readable invoice for my order, and can it be sent to my accountant by email today?',
    'Was kostet der Versand?',
    'Où est ma commande ?',
    '¿Cuánto cuesta el envío?',
  ])('"%s" is a question for the assistant', (text) => {
    expect(asksForPerson(text)).toBe(false);
  });

  it('answers from the best result only when it scores at least GOOD_MATCH_SCORE', () => {
    expect(goodMatch([])).toBeUndefined();
    expect(goodMatch([result({ score: GOOD_MATCH_SCORE - 0.001 })])).toBeUndefined();
    const best = result({ score: GOOD_MATCH_SCORE });
    expect(goodMatch([best, result({ external_ref: 'other' })])).toBe(best);
  });

  it('the extractive reply quotes the passage under its heading, cites the piece and links it', () => {
    const reply = extractiveReply(result(), textsFor('en'));
    expect(reply).toEqual({
      text: 'Here is what I found:\n\nReturns and refunds: You can return any item within 30 days of delivery.\n\nMore: https://shop.example/returns',
      citation: { external_ref: 'returns', heading: 'Returns and refunds', url: 'https://shop.example/returns' },
      offersPerson: false,
    });
    expect(extractiveReply(result({ url: null }), textsFor('en')).text).not.toContain('More:');
  });

  it("without a match it says so in the customer's language and offers a person", () => {
    expect(extractiveReply(undefined, textsFor('de'))).toEqual({ text: textsFor('de').no_match, citation: null, offersPerson: true });
  });

  it('a written reply keeps the citation and adds the link when the writer left it out', () => {
    const extractive = extractiveReply(result(), textsFor('en'));
    expect(writtenReply(' Returns are free within 30 days. ', extractive, textsFor('en'))).toEqual({
      ...extractive,
      text: 'Returns are free within 30 days.\n\nMore: https://shop.example/returns',
    });
    expect(writtenReply('See https://shop.example/returns', extractive, textsFor('en')).text).toBe('See https://shop.example/returns');
  });

  it('cuts a question to the 1,000 code points the search takes', () => {
    expect([...searchQuestion('😀'.repeat(1500))]).toHaveLength(1000);
    expect(searchQuestion('  hi  ')).toBe('hi');
  });
});
