/** Shapes of the chat's visitor API (`/chat/v1/*`) and of its internal calls; the rules are in apps/chat. */
import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { E164, IsLanguageTag } from './contacts.dto';
import { CodePoints, PlainText } from './validators';
import type { EventConsent, EventContact, EventConversation } from './events';
import type { Plan } from './plans';

/** `wgt_` + base64url: the account's public widget id (not a secret). */
export const WIDGET_ID = /^wgt_[A-Za-z0-9_-]{8,64}$/;
/** `vis_` + 32 random bytes base64url: a visitor's token, scoped to one conversation. */
export const VISITOR_TOKEN = /^vis_[A-Za-z0-9_-]{43}$/;
export const CHAT_MESSAGE_MAX = 4000;

export const CONVERSATION_STATUSES = ['open', 'needs_human', 'handed_over'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export const HANDOVER_STATES = ['none', 'waiting', 'ask_reach', 'created'] as const;
export type HandoverState = (typeof HANDOVER_STATES)[number];
export const MESSAGE_AUTHORS = ['customer', 'assistant', 'team', 'system'] as const;
export type MessageAuthor = (typeof MESSAGE_AUTHORS)[number];
export const REACH_CHANNELS = ['email', 'whatsapp'] as const;
export type ReachChannel = (typeof REACH_CHANNELS)[number];

/** `POST /chat/v1/sessions`. */
export class CreateChatSessionDto {
  @IsString()
  @Matches(WIDGET_ID, { message: '$property must be a widget id (wgt_…)' })
  widget!: string;

  /** A same-browser pass; one that identifies nobody is ignored. */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  identity?: string;

  /** The visitor's token from an earlier session of this browser. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  token?: string;
}

/** `POST /chat/v1/messages`. */
export class SendChatMessageDto {
  @IsString()
  @CodePoints(1, CHAT_MESSAGE_MAX)
  @PlainText()
  @Matches(/\S/, { message: '$property must not be blank' })
  text!: string;
}

/** The consent words a visitor was shown, in their language: what a consent they give records. */
export class ShownConsentDto {
  /** The exact words shown next to the checkbox (from `GET /chat/v1/texts`). */
  @IsString()
  @CodePoints(1, 10_000)
  consent_text!: string;

  @IsOptional()
  @IsLanguageTag()
  lang?: string;
}

/** `POST /chat/v1/handover/reach`: how the customer wants the team to reach them (with the consent words shown). */
export class HandoverReachDto extends ShownConsentDto {
  @IsIn(REACH_CHANNELS)
  channel!: ReachChannel;

  @ValidateIf((dto: HandoverReachDto) => dto.channel === 'email' || dto.email !== undefined)
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ValidateIf((dto: HandoverReachDto) => dto.channel === 'whatsapp' || dto.phone !== undefined)
  @Matches(E164, { message: '$property must be an E.164 number such as +447700900123' })
  phone?: string;

  @IsBoolean()
  consent!: boolean;
}

/** `POST /chat/v1/consents`: the visitor ticked a future-contact consent (the exact words shown). */
export class FutureConsentDto extends ShownConsentDto {
  @IsIn(['future_email', 'future_whatsapp'])
  purpose!: 'future_email' | 'future_whatsapp';
}

/** `GET /chat/v1/texts?lang=xx`. */
export class ChatTextsQueryDto {
  @IsOptional()
  @IsLanguageTag()
  lang?: string;
}

/** A piece an assistant answer is grounded in. */
export interface ChatCitation {
  external_ref: string;
  heading: string;
  url: string | null;
}

/** One message of a conversation as the widget shows it. */
export interface ChatMessage {
  /** Increasing per conversation; the stream's event id. */
  id: number;
  author: MessageAuthor;
  text: string;
  at: string;
  citation: ChatCitation | null;
  offers_person: boolean;
}

export const CHAT_CHANNELS = ['web', 'whatsapp'] as const;
export type ChatChannel = (typeof CHAT_CHANNELS)[number];

export interface ChatConversationState {
  id: number;
  channel: ChatChannel;
  status: ConversationStatus;
  handover: HandoverState;
}

/** What the chat knows of an identified visitor, offered back instead of asked. */
export interface ChatCustomer {
  name: string;
  email: string | null;
  phone: string | null;
}

/** `GET /chat/v1/conversation`. */
export interface ChatConversationResponse {
  conversation: ChatConversationState;
  customer: ChatCustomer | null;
  messages: ChatMessage[];
}

/** `POST /chat/v1/sessions` → 201 (new conversation) or 200 (the token given is still valid). */
export interface ChatSessionResponse extends ChatConversationResponse {
  token: string;
}

/** `GET /chat/v1/texts`: the words the widget shows; the server is their one source. */
export interface ChatTexts {
  lang: string;
  greeting: string;
  greeting_named: string;
  reply_email_consent: string;
  reply_whatsapp_consent: string;
  /** The exact words of the future-contact consents the chat can ask for. */
  future_email_consent: string;
  future_whatsapp_consent: string;
  ask_reach: string;
  talk_to_person: string;
  waiting_for_person: string;
  handover_created: string;
}

// ---- Internal (not routed by the gateway, not in the OpenAPI document) ----

/** `GET /internal/widgets/:widget` on the gateway: the account a widget id belongs to. */
export interface WidgetAccountResponse {
  account: { id: string; name: string; plan: Plan };
}

/** `PATCH /internal/contacts/by-svc-id/:svcId` on contacts-api: details a chat-met customer left. */
export class ChatCustomerDetailsDto {
  @IsOptional()
  @IsString()
  @CodePoints(0, 200)
  name?: string;

  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @IsOptional()
  @Matches(E164, { message: '$property must be an E.164 number such as +447700900123' })
  phone?: string;

  @IsOptional()
  @IsLanguageTag()
  lang?: string;
}

export class EventConversationDto implements EventConversation {
  @IsInt()
  @Min(1)
  id!: number;

  @IsString()
  @MaxLength(32)
  channel!: string;

  @IsString()
  @MaxLength(2048)
  url!: string;
}

/** `POST /internal/contacts/by-svc-id/:svcId/consents` on contacts-api: a consent given in the chat. */
export class ChatConsentDto {
  @IsIn(['reply_email', 'reply_whatsapp', 'future_email', 'future_whatsapp'])
  purpose!: 'reply_email' | 'reply_whatsapp' | 'future_email' | 'future_whatsapp';

  @IsString()
  @CodePoints(1, 10_000)
  text!: string;

  @IsOptional()
  @IsLanguageTag()
  lang?: string;

  @ValidateNested()
  @Type(() => EventConversationDto)
  conversation!: EventConversationDto;
}

export interface ChatConsentResponse {
  contact: EventContact;
  consent: EventConsent;
}

/** A consent with contacts-api's id of it (internal: the console's Withdraw action names it). */
export interface InternalConsent extends EventConsent {
  id: number;
}

/** `GET /internal/contacts/by-svc-id/:svcId/consents` on contacts-api. */
export interface InternalConsentsResponse {
  consents: InternalConsent[];
}

/** `:svcId/consents/:consentId` of the internal withdraw route. */
export class ConsentIdParams {
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  svcId!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  consentId!: number;
}

export const WITHDRAWN_BY_CHAT = ['customer', 'team'] as const;
/** The conversation a change came from (checked as `EventConversationDto`), or null outside one. */
function ConversationOrNull(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((dto: { conversation: unknown }) => dto.conversation !== null),
    ValidateNested(),
    Type(() => EventConversationDto),
  );
}

export type ChatWithdrawnBy = (typeof WITHDRAWN_BY_CHAT)[number];

/** `POST /internal/contacts/by-svc-id/:svcId/consents/:consentId/withdraw` on contacts-api. */
export class WithdrawConsentDto {
  @IsIn(WITHDRAWN_BY_CHAT)
  withdrawn_by!: ChatWithdrawnBy;

  /** The conversation the withdrawal came from, or null (the console's Withdraw action outside one). */
  @ConversationOrNull()
  conversation!: EventConversationDto | null;
}

/** `POST /internal/contacts/whatsapp-stop` on contacts-api: STOP arrived from this number. */
export class WhatsappStopDto {
  @Matches(E164, { message: '$property must be an E.164 number such as +447700900123' })
  number!: string;

  @ConversationOrNull()
  conversation!: EventConversationDto | null;
}

export interface WhatsappStopResponse {
  /** How many consents were withdrawn (one `consent.withdrawn` each). */
  withdrawn: number;
}

/** `POST /internal/contacts/by-svc-id/:svcId/confirm` on contacts-api: the customer proved an address. */
export class ConfirmContactDto {
  @IsIn(['email', 'phone'])
  confirmed!: 'email' | 'phone';

  /** The address or number that was proven; confirmed only if it is still the customer's. */
  @IsString()
  @MaxLength(254)
  value!: string;

  @ValidateNested()
  @Type(() => EventConversationDto)
  conversation!: EventConversationDto;
}

export interface ConfirmContactResponse {
  contact: EventContact;
  /** true when this call confirmed it (and emitted `contact.confirmed`); false when it was already confirmed. */
  changed: boolean;
}

/** `PUT /internal/chat/whatsapp-number` on the chat (`admin whatsapp connect`): the account's WhatsApp Business number. */
export class ConnectWhatsappDto {
  @IsString()
  @Matches(/^[0-9A-Za-z_-]{1,64}$/, { message: '$property must be the Cloud API phone number id (digits)' })
  phone_number_id!: string;

  @Matches(E164, { message: '$property must be an E.164 number such as +447700900123' })
  number!: string;
}

export interface WhatsappNumberResponse {
  account_id: string;
  phone_number_id: string;
  number: string;
}

/** `:id` of `/internal/chat/conversations/:id/…`. */
export class ConversationIdParams {
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  id!: number;
}

/** `POST /internal/chat/conversations/:id/whatsapp-template` on the chat: an approved template. */
export class WhatsappTemplateDto {
  @Matches(/^[a-z0-9_]{1,512}$/, { message: '$property must be a template name (lowercase letters, digits, underscores)' })
  template!: string;

  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: '$property must be a template language code such as en or en_US' })
  lang!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(1024, { each: true })
  params?: string[];
}

/** `POST /internal/chat/conversations/:id/whatsapp-text` on the chat: a free-form team reply. */
export class WhatsappTextDto {
  @IsString()
  @CodePoints(1, CHAT_MESSAGE_MAX)
  @PlainText()
  @Matches(/\S/, { message: '$property must not be blank' })
  text!: string;
}

/** `POST /chat/v1/phone-code`: the code to send from the customer's phone to the business's WhatsApp number. */
export interface PhoneCodeResponse {
  code: string;
  /** The business's WhatsApp number to send it to. */
  number: string;
  /** The customer's number it must come from. */
  phone: string;
  expires_at: string;
}

/** `PUT /internal/chat/widget-settings` on the chat (the admin command line). */
export class WidgetOriginsDto {
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(/^https?:\/\/[^/?#\s]+$/, {
    each: true,
    message: '$property must be origins such as https://shop.example (scheme and host, no path)',
  })
  origins!: string[];
}

export interface WidgetSettingsResponse {
  account_id: string;
  allowed_origins: string[];
}
