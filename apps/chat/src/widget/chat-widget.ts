import type { ChatConversationResponse, ChatCustomer, ChatMessage, ChatTexts } from '@svc/contracts';
import { ChatApi, ChatApiError } from './api';
import { h } from './dom';
import { ConversationStream, StreamState } from './stream';
import { WIDGET_CSS } from './styles';

export interface WidgetOptions {
  /** `{app_url}`: where widget.js came from. */
  base: string;
  widget: string;
  identity?: string;
  /** The visitor's language (`navigator.language`). */
  lang: string;
}

const AUTHOR_LABEL: Record<ChatMessage['author'], string> = { customer: 'You', assistant: 'Assistant', team: 'Team', system: '' };

/** A booking can be requested when the assistant's last answer cited a piece. */
export function canBook(messages: readonly ChatMessage[]): boolean {
  let last: ChatMessage | undefined;
  for (const message of messages) if (message.author === 'assistant' && (!last || message.id > last.id)) last = message;
  return last?.citation != null;
}

/** Where the visitor token of a widget id is kept across reloads (per widget: one page may embed two). */
export const tokenKey = (widget: string) => `svc-chat:${widget}:token`;
const openKey = (widget: string) => `svc-chat:${widget}:open`;

/** Removes what the browser keeps of a widget's visitor (its token, and whether the panel was open). */
export function forgetVisitor(widget: string): void {
  storage('localStorage')?.removeItem(tokenKey(widget));
  storage('sessionStorage')?.removeItem(openKey(widget));
}

/** The reply's last line "More: <url>" is shown as the source link instead (the text is kept for other channels). */
export function withoutTrailingUrl(text: string, url: string): string {
  const lines = text.trimEnd().split('\n');
  const last = lines.at(-1) ?? '';
  return lines.length > 1 && last.trimEnd().endsWith(url) && last.length - url.length < 40 ? lines.slice(0, -1).join('\n').trimEnd() : text;
}

function storage(kind: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    return window[kind];
  } catch {
    return null; // storage blocked (privacy settings): the conversation lasts as long as the page
  }
}

/**
 * The chat on a business's page: a launcher and a panel inside an open shadow root. It opens a
 * visitor session when first opened (or at load when it was open before a reload), shows the
 * conversation, follows the stream, and walks the hand-over with the visitor.
 */
export class ChatWidget {
  private readonly api: ChatApi;
  private readonly messages = new Map<number, ChatMessage>();
  private state: StreamState = { status: 'open', handover: 'none' };
  private customer: ChatCustomer | null = null;
  /** The conversation shown (undefined before a session). */
  private conversationId?: number;
  private texts?: ChatTexts;
  private stream?: ConversationStream;
  private starting?: Promise<void>;
  /** Raised by reset(): a session that was opening before it is dropped when it arrives. */
  private generation = 0;
  /**
   * Tokens the conversation gets once an address left here is confirmed, newest last: kept in
   * memory only, so that a copy of the saved token never leads to them (docs/chat.md "Visitor tokens").
   */
  private successors: string[] = [];
  /** A renewal under way (the stream and a call may find the token refused at once). */
  private renewing?: Promise<void>;

  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly subtitle: HTMLElement;
  private readonly log: HTMLElement;
  private readonly note: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly person: HTMLButtonElement;
  private readonly reachForm: HTMLFormElement;
  private readonly book: HTMLButtonElement;
  private readonly bookingForm: HTMLFormElement;

  constructor(
    host: HTMLElement,
    private readonly options: WidgetOptions,
  ) {
    this.api = new ChatApi(options.base);
    this.api.renew = () => this.renew();
    const root = host.attachShadow({ mode: 'open' });
    root.append(h('style', {}, WIDGET_CSS));

    this.launcher = h('button', { class: 'launcher', type: 'button', 'aria-expanded': 'false', 'aria-controls': 'svc-chat-panel' }, 'Chat');
    const close = h('button', { class: 'close', type: 'button', 'aria-label': 'Close' }, '×');
    this.subtitle = h('p', {}, '');
    this.log = h('div', { class: 'log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite', tabindex: '0' });
    this.note = h('div', { class: 'note', role: 'status' });
    this.input = h('textarea', { 'aria-label': 'Message', placeholder: 'Write a message…', rows: '1', maxlength: '4000' });
    this.send = h('button', { class: 'primary', type: 'submit' }, 'Send');
    this.person = h('button', { class: 'link', type: 'button' }, 'Talk to a person');
    this.reachForm = h('form', { class: 'reach', hidden: true });
    this.book = h('button', { class: 'link', type: 'button', hidden: true }, 'Request a booking');
    this.bookingForm = h('form', { class: 'reach', 'aria-label': 'Booking request', hidden: true });
    const compose = h('form', { class: 'compose' }, this.input, this.send);
    this.panel = h(
      'section',
      { class: 'panel', id: 'svc-chat-panel', role: 'dialog', 'aria-label': 'Chat with us', hidden: true },
      h('header', { class: 'head' }, h('div', {}, h('h2', {}, 'Chat with us'), this.subtitle), close),
      this.log,
      this.reachForm,
      this.bookingForm,
      this.note,
      compose,
      h('div', { class: 'foot' }, this.person, this.book),
    );
    root.append(h('div', { class: 'root' }, this.panel, this.launcher));

    this.launcher.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close()));
    close.addEventListener('click', () => this.close());
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
    });
    compose.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.submit();
      }
    });
    this.person.addEventListener('click', () => void this.askForPerson());
    this.reachForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submitReach();
    });
    this.book.addEventListener('click', () => this.openBookingForm());
    this.bookingForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submitBooking();
    });

    if (storage('sessionStorage')?.getItem(openKey(options.widget)) === '1') this.open();
  }

  open(): void {
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    storage('sessionStorage')?.setItem(openKey(this.options.widget), '1');
    this.input.focus();
    void this.started().catch((err: unknown) => this.showError(err));
  }

  /** The session, opened once; after a failure (the chat unreachable) the next call tries again. */
  private started(): Promise<void> {
    this.starting ??= this.start().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  close(): void {
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    storage('sessionStorage')?.removeItem(openKey(this.options.widget));
    this.launcher.focus();
  }

  /**
   * Forgets the visitor at once (the business's sign-out): the saved token, the stream, the
   * panel's conversation and the page's pass; the next open starts an anonymous session.
   */
  reset(): void {
    this.generation += 1;
    this.stream?.stop();
    this.stream = undefined;
    this.starting = undefined;
    this.api.token = '';
    this.options.identity = undefined;
    forgetVisitor(this.options.widget);
    this.clear();
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.render();
  }

  /** Nothing of a conversation left on the panel. */
  private clear(): void {
    this.conversationId = undefined;
    this.successors = [];
    this.messages.clear();
    this.customer = null;
    this.state = { status: 'open', handover: 'none' };
    this.note.textContent = '';
    this.note.className = 'note';
    this.bookingForm.hidden = true;
    this.bookingForm.replaceChildren();
  }

  /** Opens (or resumes) the visitor session, then follows the stream. */
  private async start(): Promise<void> {
    const [texts] = await Promise.all([this.api.texts(this.options.lang).catch(() => undefined), this.openSession()]);
    this.texts = texts;
    if (texts) this.person.textContent = texts.talk_to_person;
    this.render();
  }

  private async openSession(): Promise<void> {
    const store = storage('localStorage');
    const saved = store?.getItem(tokenKey(this.options.widget)) ?? undefined;
    const generation = this.generation;
    const session = await this.api.session(this.options.widget, this.options.identity, saved);
    if (generation !== this.generation) return;
    this.follow(session.token, session);
  }

  /** Uses `token` from now on (saved for reloads), shows `view` and follows the stream with it. */
  private follow(token: string, view: ChatConversationResponse): void {
    this.api.token = token;
    storage('localStorage')?.setItem(tokenKey(this.options.widget), token);
    this.load(view);
    this.stream?.stop();
    this.stream = new ConversationStream(this.options.base, token, {
      lastId: () => this.lastId(),
      message: (message) => this.add(message),
      state: (state) => this.setState(state),
      refused: () => void this.renew().catch((err: unknown) => this.showError(err)),
    });
    this.stream.start();
  }

  /**
   * The token was refused (the conversation became a customer's and got a new token, or the token
   * outlived VISITOR_TOKEN_MAX_AGE, or the conversation was erased). Unseen when possible: the
   * token this widget was given for a confirmation it asked for, else a session with the saved token
   * and the page's pass (the same conversation, for its customer, with a new token); else a new one.
   */
  private renew(): Promise<void> {
    this.renewing ??= this.renewNow().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewNow(): Promise<void> {
    const generation = this.generation;
    for (const next of [...this.successors].reverse()) {
      const view = await this.api.conversationWith(next);
      if (generation !== this.generation) return;
      if (view && view.conversation.id === this.conversationId) {
        this.successors = this.successors.filter((token) => token !== next);
        this.follow(next, view);
        this.render();
        return;
      }
    }
    await this.openSession();
    this.render();
  }

  /** What the session shows, and only that: a new conversation (another customer's page) replaces what was shown. */
  private load(body: ChatConversationResponse): void {
    if (body.conversation.id !== this.conversationId) this.clear();
    this.conversationId = body.conversation.id;
    this.customer = body.customer;
    this.state = { status: body.conversation.status, handover: body.conversation.handover };
    for (const message of body.messages) this.messages.set(message.id, message);
  }

  private lastId(): number {
    let last = 0;
    for (const id of this.messages.keys()) last = Math.max(last, id);
    return last;
  }

  private add(message: ChatMessage): void {
    if (this.messages.has(message.id)) return;
    this.messages.set(message.id, message);
    this.renderLog();
  }

  private setState(state: StreamState): void {
    this.state = state;
    this.renderControls();
  }

  private async submit(): Promise<void> {
    const text = this.input.value.trim();
    if (!text || this.send.disabled) return;
    this.send.disabled = true;
    try {
      await this.started();
      this.add(await this.api.send(text));
      this.input.value = '';
      this.note.textContent = '';
      this.note.className = 'note';
    } catch (err) {
      this.showError(err);
    } finally {
      this.send.disabled = false;
      this.input.focus();
    }
  }

  private async askForPerson(): Promise<void> {
    try {
      await this.started();
      const state = await this.api.handover();
      this.setState({ status: state.status, handover: state.handover });
    } catch (err) {
      this.showError(err);
    }
  }

  private async submitReach(): Promise<void> {
    const form = new FormData(this.reachForm);
    const channel = form.get('channel') === 'whatsapp' ? 'whatsapp' : 'email';
    const address = String(form.get('address') ?? '').trim();
    const consentText = channel === 'email' ? this.texts?.reply_email_consent : this.texts?.reply_whatsapp_consent;
    try {
      const state = await this.api.reach({
        channel,
        ...(channel === 'email' ? { email: address } : { phone: address.replace(/[\s()-]/g, '') }),
        consent: form.get('consent') === 'on',
        consent_text: consentText ?? '',
        lang: this.texts?.lang ?? this.options.lang,
      });
      if (state.next_token) this.successors.push(state.next_token);
      this.note.textContent = '';
      this.setState({ status: state.status, handover: state.handover });
      const lang = this.texts?.lang ?? this.options.lang;
      const future = channel === 'email' ? this.texts?.future_email_consent : this.texts?.future_whatsapp_consent;
      if (form.get('future') === 'on' && future)
        await this.api.consent(channel === 'email' ? 'future_email' : 'future_whatsapp', future, lang);
      if (channel === 'whatsapp') await this.showPhoneCode();
    } catch (err) {
      this.showError(err);
    }
  }

  /** A date and time (the visitor's local time, sent as UTC) and an optional note. */
  private openBookingForm(): void {
    const when = h('input', { type: 'datetime-local', name: 'starts_at', required: true });
    const cancel = h('button', { class: 'link', type: 'button' }, 'Cancel');
    cancel.addEventListener('click', () => this.closeBookingForm());
    this.bookingForm.replaceChildren(
      h('label', { class: 'field' }, 'Date and time', when),
      h('label', { class: 'field' }, 'Note (optional)', h('textarea', { name: 'note', rows: '2', maxlength: '1000' })),
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send booking request'), cancel),
    );
    this.bookingForm.hidden = false;
    when.focus();
  }

  private closeBookingForm(): void {
    this.bookingForm.hidden = true;
    this.bookingForm.replaceChildren();
    this.book.focus();
  }

  private async submitBooking(): Promise<void> {
    const form = new FormData(this.bookingForm);
    const startsAt = new Date(String(form.get('starts_at') ?? ''));
    if (Number.isNaN(startsAt.getTime())) return;
    try {
      await this.api.requestBooking(startsAt.toISOString(), String(form.get('note') ?? '').trim());
      this.note.textContent = '';
      this.closeBookingForm();
    } catch (err) {
      this.showError(err);
    }
  }

  /** Phone confirmation: the code to send on WhatsApp from the number just left, and where to (none when the business has no number). */
  private async showPhoneCode(): Promise<void> {
    const shown = await this.api.phoneCode().catch(() => null);
    if (!shown) return;
    if (shown.next_token) this.successors.push(shown.next_token);
    this.note.className = 'note';
    this.note.textContent = `To confirm your number, send the code ${shown.code} on WhatsApp from ${shown.phone} to ${shown.number} within 10 minutes.`;
  }

  private showError(err: unknown): void {
    this.note.className = 'note error';
    this.note.textContent =
      err instanceof ChatApiError && err.status < 500 && err.status !== 429
        ? err.message
        : 'The chat is not reachable right now. Please try again in a moment.';
  }

  private render(): void {
    this.renderLog();
    this.renderControls();
  }

  private greeting(): string {
    const name = this.customer?.name;
    if (name) return (this.texts?.greeting_named ?? 'Hi {name}! Ask us anything.').replace('{name}', name);
    return this.texts?.greeting ?? 'Hi! Ask us anything.';
  }

  private renderLog(): void {
    const items: HTMLElement[] = [h('div', { class: 'msg them' }, this.greeting())];
    for (const message of [...this.messages.values()].sort((a, b) => a.id - b.id)) items.push(this.bubble(message));
    this.log.replaceChildren(...items);
    this.log.scrollTop = this.log.scrollHeight;
    this.book.hidden = !canBook([...this.messages.values()]);
  }

  private bubble(message: ChatMessage): HTMLElement {
    const kind = message.author === 'customer' ? 'me' : message.author === 'system' ? 'system' : 'them';
    const bubble = h('div', { class: `msg ${kind}` });
    const label = AUTHOR_LABEL[message.author];
    if (kind === 'them' && label) bubble.append(h('span', { class: 'who' }, label));
    const citation = message.citation;
    bubble.append(citation?.url ? withoutTrailingUrl(message.text, citation.url) : message.text);
    if (citation) {
      bubble.append(
        citation.url
          ? h(
              'span',
              { class: 'cite' },
              'Source: ',
              h('a', { href: citation.url, target: '_blank', rel: 'noopener noreferrer' }, citation.heading),
            )
          : h('span', { class: 'cite' }, `Source: ${citation.heading}`),
      );
    }
    return bubble;
  }

  private renderControls(): void {
    const { handover } = this.state;
    this.person.hidden = handover !== 'none';
    this.subtitle.textContent =
      handover === 'waiting'
        ? (this.texts?.waiting_for_person ?? 'A person will answer shortly.')
        : this.customer?.name
          ? `Signed in as ${this.customer.name}`
          : 'We usually answer right away';
    if (handover === 'ask_reach') {
      if (this.reachForm.hidden) this.buildReachForm();
      this.reachForm.hidden = false;
      // The form takes room from the log: keep its latest message in view.
      this.log.scrollTop = this.log.scrollHeight;
    } else {
      this.reachForm.hidden = true;
      this.reachForm.replaceChildren();
    }
  }

  /** Email or WhatsApp, the address (the customer's own offered back), and the consent words from the server. */
  private buildReachForm(): void {
    const texts = this.texts;
    const email = this.customer?.email ?? '';
    const phone = this.customer?.phone ?? '';
    const radio = (value: string, text: string, checked: boolean) =>
      h('label', {}, h('input', { type: 'radio', name: 'channel', value, checked }), text);
    const address = h('input', {
      type: 'email',
      name: 'address',
      'aria-label': 'Email',
      autocomplete: 'email',
      required: true,
      value: email,
    });
    const consent = h('input', { type: 'checkbox', name: 'consent' });
    const consentLabel = h('span', {}, texts?.reply_email_consent ?? '');
    const future = h('input', { type: 'checkbox', name: 'future' });
    const futureLabel = h('span', {}, texts?.future_email_consent ?? '');
    const channels = h(
      'fieldset',
      {},
      h('legend', {}, texts?.ask_reach ?? 'How can we reach you?'),
      radio('email', 'Email', true),
      radio('whatsapp', 'WhatsApp', false),
    );
    channels.addEventListener('change', () => {
      const whatsapp = (channels.querySelector('input:checked') as HTMLInputElement | null)?.value === 'whatsapp';
      address.type = whatsapp ? 'tel' : 'email';
      address.setAttribute('aria-label', whatsapp ? 'WhatsApp number' : 'Email');
      address.autocomplete = whatsapp ? 'tel' : 'email';
      address.placeholder = whatsapp ? '+49 151 2345678' : '';
      address.value = whatsapp ? phone : email;
      consentLabel.textContent = (whatsapp ? texts?.reply_whatsapp_consent : texts?.reply_email_consent) ?? '';
      futureLabel.textContent = (whatsapp ? texts?.future_whatsapp_consent : texts?.future_email_consent) ?? '';
    });
    this.reachForm.replaceChildren(
      channels,
      address,
      h('label', {}, consent, consentLabel),
      h('label', {}, future, futureLabel),
      h('div', {}, h('button', { class: 'primary', type: 'submit' }, 'Ask the team to reach me')),
    );
  }
}
