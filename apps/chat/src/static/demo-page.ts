/** JSON for an inline `<script>`: `<` escaped so no value can close the script element. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface DemoPageInput {
  widget: string;
  /** A pass for the sample customer; absent: an anonymous visitor. */
  identity?: string;
  customerName?: string;
}

const PRODUCTS: Array<[string, string, string]> = [
  ['Lindenhof House Blend', 'Chocolate, hazelnut, a soft finish. 500 g whole beans.', '€14.50'],
  ['Ethiopia Guji', 'Bergamot and peach, light roast for filter. 250 g.', '€11.90'],
  ['Decaf Colombia', 'Caramel and red apple, Swiss-water decaffeinated. 500 g.', '€15.20'],
];

/** The sample shop page of `/chat/demo`, with the widget placed by the contract's embed. */
export function demoPage(input: DemoPageInput): string {
  const settings = { widget: input.widget, ...(input.identity ? { identity: input.identity } : {}) };
  const visitor = input.identity
    ? `Signed in as <strong>${escapeHtml(input.customerName ?? '')}</strong> (a sample customer: the page carries a pass for them). <a href="/chat/demo?as=anonymous">View as an anonymous visitor</a>`
    : 'You are an anonymous visitor. <a href="/chat/demo">View as the signed-in sample customer</a>';
  const products = PRODUCTS.map(
    ([name, text, price]) =>
      `<article><div class="img" aria-hidden="true"></div><h3>${name}</h3><p>${text}</p><p class="price">${price}</p></article>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lindenhof Coffee Roasters (chat demo)</title>
<style>
body { margin: 0; font: 16px/1.5 Georgia, "Times New Roman", serif; color: #2b2118; background: #fbf8f3; }
header { display: flex; justify-content: space-between; align-items: center; padding: 18px 40px; border-bottom: 1px solid #e8dfd2; background: #fff; }
header strong { font-size: 22px; letter-spacing: .5px; }
nav a { margin-left: 24px; color: #2b2118; text-decoration: none; }
.account { padding: 8px 40px; font: 13px system-ui, sans-serif; background: #f3ece1; }
.hero { padding: 56px 40px 32px; max-width: 760px; }
.hero h1 { font-size: 40px; margin: 0 0 12px; font-weight: normal; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 24px; padding: 0 40px 80px; }
article { background: #fff; border: 1px solid #e8dfd2; border-radius: 10px; padding: 18px; }
article .img { height: 120px; border-radius: 8px; background: linear-gradient(135deg, #8a5a3b, #d9b38c); }
article h3 { margin: 14px 0 6px; } .price { font-weight: bold; }
footer { padding: 24px 40px; font: 13px system-ui, sans-serif; color: #6b5d50; border-top: 1px solid #e8dfd2; }
</style>
</head>
<body>
<header><strong>Lindenhof Coffee</strong><nav aria-label="Shop"><a href="#">Coffee</a><a href="#">Brewing</a><a href="#">Shipping &amp; returns</a></nav></header>
<p class="account">${visitor}</p>
<main>
<section class="hero"><h1>Small-batch coffee, roasted every Tuesday</h1><p>Questions about an order, shipping or returns? Ask in the chat: the assistant answers from our help pages, and a person takes over when you want one.</p></section>
<section class="grid" aria-label="Products">${products}</section>
</main>
<footer>A sample shop served by the chat app at /chat/demo (development only). The chat below is the real widget, placed with the embed businesses use.</footer>
<script>window.SvcChat = ${inlineJson(settings)};</script>
<script src="/chat/widget.js" async></script>
</body>
</html>
`;
}
