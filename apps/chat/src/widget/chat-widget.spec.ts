import type { ChatMessage } from '@svc/contracts';
import { canBook, tokenKey, withoutTrailingUrl } from './chat-widget';

describe('chat widget: pure helpers', () => {
  it('drops the reply\'s last "More: <url>" line, which the widget shows as the source link', () => {
    expect(
      withoutTrailingUrl(
        'Here is what I found:\n\nReturns: within 30 days.\n\nMore: https://shop.example/returns',
        'https://shop.example/returns',
      ),
    ).toBe('Here is what I found:\n\nReturns: within 30 days.');
    expect(withoutTrailingUrl('Mehr: https://shop.example/r\n', 'https://shop.example/r')).toBe('Mehr: https://shop.example/r\n');
    expect(
      withoutTrailingUrl(
        'See this.\nA long sentence that happens to end with the address https://shop.example/r',
        'https://shop.example/r',
      ),
    ).toContain('A long sentence');
    expect(withoutTrailingUrl('Answer.\nMore: https://other.example', 'https://shop.example/r')).toBe(
      'Answer.\nMore: https://other.example',
    );
  });

  it('keeps one visitor token per widget id', () => {
    expect(tokenKey('wgt_a')).not.toBe(tokenKey('wgt_b'));
  });

  it("offers a booking when the assistant's last answer cited a piece, not after one that found nothing", () => {
    const message = (id: number, author: ChatMessage['author'], cited: boolean): ChatMessage => ({
      id,
      author,
      text: 'x',
      at: '2026-11-21T10:04:05.000000+00:00',
      citation: cited ? { external_ref: 'flat', heading: 'Flat', url: null } : null,
      offers_person: !cited,
    });
    expect(canBook([])).toBe(false);
    expect(canBook([message(1, 'customer', false), message(2, 'assistant', true)])).toBe(true);
    expect(canBook([message(2, 'assistant', true), message(4, 'assistant', false), message(3, 'customer', false)])).toBe(false);
    expect(canBook([message(2, 'assistant', true), message(3, 'team', false)])).toBe(true);
  });
});
