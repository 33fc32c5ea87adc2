import { tokenKey, withoutTrailingUrl } from './chat-widget';

describe('chat widget: pure helpers', () => {
  it('drops the reply\'s last "More: <url>" line, which the widget shows as the source link', () => {
    expect(withoutTrailingUrl('Here is what I found:\n\nReturns: within 30 days.\n\nMore: https://shop.example/returns', 'https://shop.example/returns')).toBe(
      'Here is what I found:\n\nReturns: within 30 days.',
    );
    expect(withoutTrailingUrl('Mehr: https://shop.example/r\n', 'https://shop.example/r')).toBe('Mehr: https://shop.example/r\n');
    expect(withoutTrailingUrl('See this.\nA long sentence that happens to end with the address https://shop.example/r', 'https://shop.example/r')).toContain('A long sentence');
    expect(withoutTrailingUrl('Answer.\nMore: https://other.example', 'https://shop.example/r')).toBe('Answer.\nMore: https://other.example');
  });

  it('keeps one visitor token per widget id', () => {
    expect(tokenKey('wgt_a')).not.toBe(tokenKey('wgt_b'));
  });
});
