import { ChatWidget, forgetVisitor } from './chat-widget';

interface SvcChatSettings {
  widget?: unknown;
  identity?: unknown;
  reset?: () => void;
}

/**
 * The widget's entry (bundled into `/chat/widget.js`): reads the business's `window.SvcChat`, adds
 * one host element, and builds everything else inside its open shadow root. No global of its own:
 * `reset()` (forget the visitor, for the business's sign-out) is added to the business's object.
 */
function boot(): void {
  const settings = (window as Window & { SvcChat?: SvcChatSettings }).SvcChat;
  const script = document.currentScript as HTMLScriptElement | null;
  if (!settings || typeof settings.widget !== 'string' || !script?.src) {
    console.warn('svc-chat: set window.SvcChat = { widget: "wgt_…" } before loading widget.js');
    return;
  }
  const widget = settings.widget;
  const host = document.createElement('div');
  host.setAttribute('data-svc-chat', '');
  let chat: ChatWidget | undefined;
  settings.reset = () => (chat ? chat.reset() : forgetVisitor(widget));
  const mount = () => {
    document.body.append(host);
    chat = new ChatWidget(host, {
      base: script.src.replace(/\/chat\/widget\.js(?:[?#].*)?$/, ''),
      widget,
      identity: typeof settings.identity === 'string' && settings.identity ? settings.identity : undefined,
      lang: (navigator.language || 'en').split('-')[0].toLowerCase(),
    });
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}

boot();
