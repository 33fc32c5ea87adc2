/** Injection tokens of the chat's interfaces and derived settings (the settings themselves: CHAT_CONFIG). */

/** The ReplyQueue (the assistant). */
export const REPLY_QUEUE = Symbol('REPLY_QUEUE');
/** The EmailLinks (email confirmations). */
export const EMAIL_LINKS = Symbol('EMAIL_LINKS');
/** The WhatsappProvider the delivery worker sends with. */
export const WHATSAPP_PROVIDER = Symbol('WHATSAPP_PROVIDER');
/** The optional LlmClient (null without LLM_BASE_URL). */
export const LLM_CLIENT = Symbol('LLM_CLIENT');
/** How often the delivery worker looks for due deliveries (ms). */
export const DELIVERY_INTERVAL_MS = Symbol('DELIVERY_INTERVAL_MS');
/** DELIVERY_RETRY_BASE_MS of the config. */
export const DELIVERY_RETRY_BASE_MS = Symbol('DELIVERY_RETRY_BASE_MS');
/** How often the hand-over sweeper runs (ms): handoverSweepIntervalMs of HANDOVER_WAIT. */
export const HANDOVER_SWEEP_INTERVAL_MS = Symbol('HANDOVER_SWEEP_INTERVAL_MS');
