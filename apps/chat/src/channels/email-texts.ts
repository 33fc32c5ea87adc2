import { textLanguage } from '../texts/texts';

/** The words of the confirmation email and of the page its link opens, per language (English otherwise). */
export interface EmailTexts {
  subject: string;
  /** `{business}`: the business's name. */
  intro: string;
  button: string;
  expires: string;
  ignore: string;
  confirmed_title: string;
  confirmed_body: string;
  used_title: string;
  used_body: string;
  changed_title: string;
  changed_body: string;
  later_title: string;
  later_body: string;
  /** The widget's note after an address was left. */
  on_its_way: string;
}

const EMAIL_TEXTS: Record<string, EmailTexts> = {
  en: {
    subject: 'Confirm your email address for {business}',
    intro: 'You left this address in the chat of {business}. Please confirm that it is yours:',
    button: 'Confirm my email address',
    expires: 'The link works once and for 24 hours.',
    ignore: 'If this was not you, ignore this email: nothing will change.',
    confirmed_title: 'Email address confirmed',
    confirmed_body: 'Thank you. {business} now knows that {email} is yours.',
    used_title: 'This link can no longer be used',
    used_body: 'It has already been used or it has expired. Nothing was changed.',
    changed_title: 'This address is no longer on file',
    changed_body: 'The address this link was sent to has since been changed. Nothing was changed.',
    later_title: 'Please try again shortly',
    later_body: 'We could not confirm your address just now. The link still works: open it again in a moment.',
    on_its_way: 'A confirmation link is on its way to {email}.',
  },
  de: {
    subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {business}',
    intro: 'Sie haben diese Adresse im Chat von {business} angegeben. Bitte bestätigen Sie, dass sie Ihnen gehört:',
    button: 'E-Mail-Adresse bestätigen',
    expires: 'Der Link funktioniert einmal und 24 Stunden lang.',
    ignore: 'Wenn Sie das nicht waren, ignorieren Sie diese E-Mail: Es ändert sich nichts.',
    confirmed_title: 'E-Mail-Adresse bestätigt',
    confirmed_body: 'Danke. {business} weiß jetzt, dass {email} Ihnen gehört.',
    used_title: 'Dieser Link kann nicht mehr verwendet werden',
    used_body: 'Er wurde bereits verwendet oder ist abgelaufen. Es wurde nichts geändert.',
    changed_title: 'Diese Adresse ist nicht mehr hinterlegt',
    changed_body: 'Die Adresse, an die dieser Link ging, wurde inzwischen geändert. Es wurde nichts geändert.',
    later_title: 'Bitte versuchen Sie es gleich noch einmal',
    later_body: 'Wir konnten Ihre Adresse gerade nicht bestätigen. Der Link funktioniert noch: Öffnen Sie ihn gleich noch einmal.',
    on_its_way: 'Ein Bestätigungslink ist unterwegs an {email}.',
  },
  fr: {
    subject: 'Confirmez votre adresse e-mail pour {business}',
    intro: 'Vous avez laissé cette adresse dans le chat de {business}. Merci de confirmer qu’elle est bien la vôtre :',
    button: 'Confirmer mon adresse e-mail',
    expires: 'Le lien fonctionne une seule fois, pendant 24 heures.',
    ignore: 'Si ce n’était pas vous, ignorez cet e-mail : rien ne changera.',
    confirmed_title: 'Adresse e-mail confirmée',
    confirmed_body: 'Merci. {business} sait maintenant que {email} est bien à vous.',
    used_title: 'Ce lien n’est plus utilisable',
    used_body: 'Il a déjà été utilisé ou il a expiré. Rien n’a été modifié.',
    changed_title: 'Cette adresse n’est plus enregistrée',
    changed_body: 'L’adresse à laquelle ce lien a été envoyé a été modifiée depuis. Rien n’a été modifié.',
    later_title: 'Veuillez réessayer dans un instant',
    later_body: 'Nous n’avons pas pu confirmer votre adresse pour le moment. Le lien fonctionne encore : rouvrez-le dans un instant.',
    on_its_way: 'Un lien de confirmation est en route vers {email}.',
  },
  es: {
    subject: 'Confirma tu dirección de correo para {business}',
    intro: 'Dejaste esta dirección en el chat de {business}. Confirma que es tuya:',
    button: 'Confirmar mi dirección de correo',
    expires: 'El enlace funciona una sola vez y durante 24 horas.',
    ignore: 'Si no fuiste tú, ignora este correo: no cambiará nada.',
    confirmed_title: 'Dirección de correo confirmada',
    confirmed_body: 'Gracias. {business} ya sabe que {email} es tuya.',
    used_title: 'Este enlace ya no se puede usar',
    used_body: 'Ya se ha usado o ha caducado. No se ha cambiado nada.',
    changed_title: 'Esta dirección ya no está registrada',
    changed_body: 'La dirección a la que se envió este enlace ha cambiado desde entonces. No se ha cambiado nada.',
    later_title: 'Vuelve a intentarlo en un momento',
    later_body: 'No hemos podido confirmar tu dirección ahora mismo. El enlace sigue funcionando: ábrelo de nuevo en un momento.',
    on_its_way: 'Un enlace de confirmación va de camino a {email}.',
  },
};

export function emailTexts(tag: string | null | undefined): EmailTexts & { lang: string } {
  const lang = Object.hasOwn(EMAIL_TEXTS, textLanguage(tag)) ? textLanguage(tag) : 'en';
  return { lang, ...(EMAIL_TEXTS[lang] as EmailTexts) };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);

/** The confirmation email: multipart text and HTML, in the customer's language, with the business's name. */
export function confirmationEmail(lang: string | null, business: string, link: string): { subject: string; text: string; html: string } {
  const t = emailTexts(lang);
  const name = business || 'our team';
  const values = { business: name };
  const text = [fill(t.intro, values), '', link, '', t.expires, t.ignore, ''].join('\n');
  const html = `<!doctype html><html lang="${t.lang}"><body style="font-family:sans-serif">
<p>${escapeHtml(fill(t.intro, values))}</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#1a56db;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(t.button)}</a></p>
<p>${escapeHtml(t.expires)}<br>${escapeHtml(t.ignore)}</p>
</body></html>`;
  return { subject: fill(t.subject, values), text, html };
}

/**
 * The button's POST, sent with fetch (no body, so no form content type for the proxies on the way);
 * without script the form posts itself.
 */
const CONFIRM_SCRIPT = `document.forms[0].addEventListener('submit',function(e){e.preventDefault();var b=this.querySelector('button');b.disabled=true;fetch(location.href,{method:'POST'}).then(function(r){return r.text()}).then(function(h){var d=new DOMParser().parseFromString(h,'text/html');document.title=d.title;document.body.replaceWith(d.body)},function(){b.disabled=false})})`;

/** The page the link opens (`ask`: the "Confirm" button) and the button's outcome: a title and a sentence, in the customer's language. */
export function confirmationPage(
  lang: string | null,
  outcome: 'ask' | 'confirmed' | 'used' | 'changed' | 'later',
  values: { business: string; email: string },
): string {
  const t = emailTexts(lang);
  const [title, body] = {
    ask: [
      fill(t.subject, { business: values.business || 'our team' }),
      `${fill(t.intro, { business: values.business || 'our team' })} {email}`,
    ],
    confirmed: [t.confirmed_title, t.confirmed_body],
    used: [t.used_title, t.used_body],
    changed: [t.changed_title, t.changed_body],
    later: [t.later_title, t.later_body],
  }[outcome] as [string, string];
  return `<!doctype html><html lang="${t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="font-family:sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem"><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(fill(body, { business: values.business || 'The team', email: values.email }))}</p>${
    outcome === 'ask'
      ? `<form method="post"><button type="submit">${escapeHtml(t.button)}</button></form><script>${CONFIRM_SCRIPT}</script>`
      : ''
  }</main></body></html>`;
}
