import { demoPage } from './demo-page';

describe('demo page', () => {
  it("places the contract's embed: window.SvcChat first, then widget.js async from the same origin", () => {
    const html = demoPage({ widget: 'wgt_abc', identity: 'pass.token.here', customerName: 'Ada Lovelace' });
    const settings = html.indexOf('window.SvcChat = {"widget":"wgt_abc","identity":"pass.token.here"};');
    expect(settings).toBeGreaterThan(0);
    expect(html.indexOf('<script src="/chat/widget.js" async></script>')).toBeGreaterThan(settings);
    expect(html).toContain('Signed in as <strong>Ada Lovelace</strong>');
  });

  it('without a pass the visitor is anonymous (no identity in the embed)', () => {
    const html = demoPage({ widget: 'wgt_abc' });
    expect(html).toContain('window.SvcChat = {"widget":"wgt_abc"};');
    expect(html).toContain('You are an anonymous visitor');
  });

  it('no value can close the script element or inject markup', () => {
    const html = demoPage({
      widget: 'wgt_</script><script>alert(1)</script>',
      identity: 'x',
      customerName: '<img src=x onerror=alert(1)>',
    });
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('\\u003c/script>');
    expect(html).not.toContain('<img src=x');
  });
});
