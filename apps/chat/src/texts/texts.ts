import { ChatTexts } from '@svc/contracts';

/**
 * Every word the chat shows or writes, per language: the widget takes its consent words from here
 * (`GET /chat/v1/texts`), so that the words recorded with a consent are the words shown.
 */
export interface AssistantTexts {
  /** The assistant's reply when it found a piece: `{passage}` then the piece's heading. */
  answer_intro: string;
  /** No good match: says so and offers a person. */
  no_match: string;
  /** The assistant could not answer (its tries ran out): says so and offers a person. */
  no_answer: string;
  /** After a customer asked for a person. */
  person_requested: string;
  /** The wait ran out: how can the team reach them. */
  ask_reach: string;
  /** The team will reach them by `{channel}`. */
  handover_created: string;
  more_at: string;
  /** A booking's news for the customer: `{listing}` (the piece's heading or ref, or `appointment`) and `{when}` (UTC). */
  booking_requested: string;
  booking_confirmed: string;
  booking_declined: string;
  booking_cancelled: string;
  appointment: string;
  /** The customer's WhatsApp number `{phone}` was confirmed by the code shown in the chat. */
  phone_confirmed: string;
}

type AllTexts = Omit<ChatTexts, 'lang'> & AssistantTexts;

const BY_LANGUAGE: Record<string, AllTexts> = {
  en: {
    greeting: 'Hi! Ask us anything.',
    greeting_named: 'Hi {name}! Ask us anything.',
    reply_email_consent: 'I agree that the team may reply to me by email about this conversation.',
    reply_whatsapp_consent: 'I agree that the team may reply to me on WhatsApp about this conversation.',
    future_email_consent: 'Yes, you may send me news and offers by email. I can withdraw this at any time.',
    future_whatsapp_consent: 'Yes, you may send me news and offers on WhatsApp. I can withdraw this at any time by sending STOP.',
    ask_reach: 'Nobody from the team is free right now. How can we reach you?',
    talk_to_person: 'Talk to a person',
    waiting_for_person: 'A person from the team will answer here shortly.',
    handover_created: 'Thank you. The team will get back to you by {channel}.',
    answer_intro: 'Here is what I found:',
    no_match: "I'm sorry, I couldn't find an answer to that. Would you like to talk to a person?",
    no_answer: "I'm sorry, I couldn't answer that right now. Would you like to talk to a person?",
    person_requested: 'A person from the team will answer here shortly.',
    more_at: 'More:',
    booking_requested: 'Your booking request for {listing} on {when} was received. We will confirm it here.',
    booking_confirmed: 'Your booking for {listing} on {when} is confirmed.',
    booking_declined: 'Sorry, your booking request for {listing} on {when} was declined.',
    booking_cancelled: 'Your booking for {listing} on {when} was cancelled.',
    appointment: 'your appointment',
    phone_confirmed: 'Thank you: your WhatsApp number {phone} is confirmed.',
  },
  de: {
    greeting: 'Hallo! Fragen Sie uns gern.',
    greeting_named: 'Hallo {name}! Fragen Sie uns gern.',
    reply_email_consent: 'Ich bin einverstanden, dass das Team mir zu diesem Gespräch per E-Mail antwortet.',
    reply_whatsapp_consent: 'Ich bin einverstanden, dass das Team mir zu diesem Gespräch über WhatsApp antwortet.',
    future_email_consent: 'Ja, Sie dürfen mir Neuigkeiten und Angebote per E-Mail senden. Ich kann das jederzeit widerrufen.',
    future_whatsapp_consent:
      'Ja, Sie dürfen mir Neuigkeiten und Angebote über WhatsApp senden. Ich kann das jederzeit mit STOPP widerrufen.',
    ask_reach: 'Gerade ist niemand aus dem Team frei. Wie können wir Sie erreichen?',
    talk_to_person: 'Mit einer Person sprechen',
    waiting_for_person: 'Eine Person aus dem Team antwortet Ihnen hier in Kürze.',
    handover_created: 'Danke. Das Team meldet sich per {channel} bei Ihnen.',
    answer_intro: 'Das habe ich gefunden:',
    no_match: 'Leider habe ich dazu keine Antwort gefunden. Möchten Sie mit einer Person sprechen?',
    no_answer: 'Leider kann ich das gerade nicht beantworten. Möchten Sie mit einer Person sprechen?',
    person_requested: 'Eine Person aus dem Team antwortet Ihnen hier in Kürze.',
    more_at: 'Mehr:',
    booking_requested: 'Ihre Buchungsanfrage für {listing} am {when} ist eingegangen. Wir bestätigen sie hier.',
    booking_confirmed: 'Ihre Buchung für {listing} am {when} ist bestätigt.',
    booking_declined: 'Leider wurde Ihre Buchungsanfrage für {listing} am {when} abgelehnt.',
    booking_cancelled: 'Ihre Buchung für {listing} am {when} wurde storniert.',
    appointment: 'Ihren Termin',
    phone_confirmed: 'Danke: Ihre WhatsApp-Nummer {phone} ist bestätigt.',
  },
  fr: {
    greeting: 'Bonjour ! Posez-nous votre question.',
    greeting_named: 'Bonjour {name} ! Posez-nous votre question.',
    reply_email_consent: "J'accepte que l'équipe me réponde par e-mail au sujet de cette conversation.",
    reply_whatsapp_consent: "J'accepte que l'équipe me réponde sur WhatsApp au sujet de cette conversation.",
    future_email_consent:
      "Oui, vous pouvez m'envoyer des nouvelles et des offres par e-mail. Je peux retirer ce consentement à tout moment.",
    future_whatsapp_consent:
      "Oui, vous pouvez m'envoyer des nouvelles et des offres sur WhatsApp. Je peux retirer ce consentement à tout moment en envoyant ARRÊT.",
    ask_reach: "Personne de l'équipe n'est disponible pour le moment. Comment pouvons-nous vous joindre ?",
    talk_to_person: 'Parler à une personne',
    waiting_for_person: "Une personne de l'équipe va vous répondre ici sous peu.",
    handover_created: "Merci. L'équipe vous recontactera par {channel}.",
    answer_intro: "Voici ce que j'ai trouvé :",
    no_match: "Désolé, je n'ai pas trouvé de réponse. Voulez-vous parler à une personne ?",
    no_answer: 'Désolé, je ne peux pas répondre pour le moment. Voulez-vous parler à une personne ?',
    person_requested: "Une personne de l'équipe va vous répondre ici sous peu.",
    more_at: 'Plus :',
    booking_requested: 'Votre demande de réservation pour {listing} le {when} a bien été reçue. Nous la confirmerons ici.',
    booking_confirmed: 'Votre réservation pour {listing} le {when} est confirmée.',
    booking_declined: 'Désolé, votre demande de réservation pour {listing} le {when} a été refusée.',
    booking_cancelled: 'Votre réservation pour {listing} le {when} a été annulée.',
    appointment: 'votre rendez-vous',
    phone_confirmed: 'Merci : votre numéro WhatsApp {phone} est confirmé.',
  },
  es: {
    greeting: '¡Hola! Pregúntenos lo que quiera.',
    greeting_named: '¡Hola {name}! Pregúntenos lo que quiera.',
    reply_email_consent: 'Acepto que el equipo me responda por correo electrónico sobre esta conversación.',
    reply_whatsapp_consent: 'Acepto que el equipo me responda por WhatsApp sobre esta conversación.',
    future_email_consent: 'Sí, pueden enviarme novedades y ofertas por correo electrónico. Puedo retirarlo en cualquier momento.',
    future_whatsapp_consent: 'Sí, pueden enviarme novedades y ofertas por WhatsApp. Puedo retirarlo en cualquier momento enviando BAJA.',
    ask_reach: 'Ahora mismo no hay nadie del equipo disponible. ¿Cómo podemos contactarle?',
    talk_to_person: 'Hablar con una persona',
    waiting_for_person: 'Una persona del equipo le responderá aquí en breve.',
    handover_created: 'Gracias. El equipo se pondrá en contacto con usted por {channel}.',
    answer_intro: 'Esto es lo que encontré:',
    no_match: 'Lo siento, no encontré una respuesta. ¿Quiere hablar con una persona?',
    no_answer: 'Lo siento, ahora mismo no puedo responder. ¿Quiere hablar con una persona?',
    person_requested: 'Una persona del equipo le responderá aquí en breve.',
    more_at: 'Más:',
    booking_requested: 'Hemos recibido su solicitud de reserva para {listing} el {when}. La confirmaremos aquí.',
    booking_confirmed: 'Su reserva para {listing} el {when} está confirmada.',
    booking_declined: 'Lo sentimos, su solicitud de reserva para {listing} el {when} fue rechazada.',
    booking_cancelled: 'Su reserva para {listing} el {when} fue cancelada.',
    appointment: 'su cita',
    phone_confirmed: 'Gracias: su número de WhatsApp {phone} está confirmado.',
  },
};

/** A Map: a language comes from the caller (`__proto__`, `constructor` are unknown languages, not keys of an object). */
const TEXTS: ReadonlyMap<string, AllTexts> = new Map(Object.entries(BY_LANGUAGE));

export const TEXT_LANGUAGES = [...TEXTS.keys()];

/** The language of `tag` the chat has words for (`de-CH` → `de`), English otherwise. */
export function textLanguage(tag: string | null | undefined): string {
  const primary = (tag ?? '').split('-')[0]?.toLowerCase() ?? '';
  return TEXTS.has(primary) ? primary : 'en';
}

export function textsFor(tag: string | null | undefined): AllTexts & { lang: string } {
  const lang = textLanguage(tag);
  return { lang, ...(TEXTS.get(lang) as AllTexts) };
}

/** What the widget shows, `GET /chat/v1/texts`. */
export function widgetTexts(tag: string | null | undefined): ChatTexts {
  const t = textsFor(tag);
  return {
    lang: t.lang,
    greeting: t.greeting,
    greeting_named: t.greeting_named,
    reply_email_consent: t.reply_email_consent,
    reply_whatsapp_consent: t.reply_whatsapp_consent,
    future_email_consent: t.future_email_consent,
    future_whatsapp_consent: t.future_whatsapp_consent,
    ask_reach: t.ask_reach,
    talk_to_person: t.talk_to_person,
    waiting_for_person: t.waiting_for_person,
    handover_created: t.handover_created,
  };
}

/** The consent words of a reach channel in a language. */
export function consentWords(channel: 'email' | 'whatsapp', tag: string | null | undefined): string {
  const texts = textsFor(tag);
  return channel === 'email' ? texts.reply_email_consent : texts.reply_whatsapp_consent;
}

/** The exact words of a future-contact consent in a language (the widget shows the same, from `GET /chat/v1/texts`). */
export function futureConsentWords(purpose: 'future_email' | 'future_whatsapp', tag: string | null | undefined): string {
  const texts = textsFor(tag);
  return purpose === 'future_email' ? texts.future_email_consent : texts.future_whatsapp_consent;
}

/** The first language of an Accept-Language header that the chat has words for, or `en`. */
export function languageOfAcceptLanguage(header: string | undefined): string {
  for (const part of (header ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim() ?? '';
    if (tag && textLanguage(tag) === tag.split('-')[0]?.toLowerCase()) return textLanguage(tag);
  }
  return 'en';
}
