import { Inject, Injectable } from '@nestjs/common';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DELIVERIES_PAGE_DEFAULT,
  DeliveriesQueryDto,
  DeliveryDto,
  DeliveryListDto,
  EventKind,
  INVALID_FIELDS,
  PublicEvent,
  RecoveredDto,
  RotatedSecretDto,
  sampleEventData,
  TestDeliveryDto,
  UpdateWebhookDto,
  WEBHOOK_ENDPOINTS_MAX,
  WEBHOOK_URL_MAX_LENGTH,
  WebhookEndpointDto,
  WebhookListDto,
} from '@svc/contracts';
import { nowTimestamp, parseTimestampInput } from '@svc/persistence';
import { ApiError } from '@svc/platform';
import { randomBytes } from 'node:crypto';
import { DeliveriesRepository, DeliveryRecord } from '../delivery/deliveries.repository';
import { deliveryBody } from '../delivery/recorded-event';
import { WebhookSender } from '../delivery/webhook-sender';
import { AddressPolicy } from '../security/address-policy';
import { SecretBox } from '../security/secret-box';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { EndpointRow, EndpointSecrets, EndpointsRepository } from './endpoints.repository';
import { WEBHOOK_DISPATCHER_CONFIG } from '../webhook-dispatcher.config';

/** Path ids are positive bigints; anything else names nothing. */
const PATH_ID = /^[1-9]\d{0,17}$/;

function toEndpointDto(row: EndpointRow): WebhookEndpointDto {
  return {
    id: Number(row.id),
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
  };
}

function toDeliveryDto(row: DeliveryRecord): DeliveryDto {
  return {
    id: Number(row.id),
    event_id: Number(row.event_id),
    event: row.event_kind as EventKind,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
  };
}

function invalidUrl(message: string): ApiError {
  return new ApiError('validation_failed', INVALID_FIELDS, [{ path: 'url', message }]);
}

function noEndpoint(id: string): ApiError {
  return new ApiError('not_found', `There is no webhook endpoint ${id}.`);
}

/** A secret as registration and rotation make it: `whsec_` + 32 random bytes, base64url. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Endpoint rules: https receivers on public addresses, known kinds, 10 per account, a secret shown
 * once; management of an endpoint and its deliveries. Every call is scoped by the caller's account:
 * another account's endpoint is a 404 like an unknown one.
 */
@Injectable()
export class EndpointsService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly policy: AddressPolicy,
    private readonly secrets: SecretBox,
    private readonly sender: WebhookSender,
    @Inject(WEBHOOK_DISPATCHER_CONFIG) private readonly config: Pick<WebhookDispatcherConfig, 'WEBHOOK_SECRET_OVERLAP_MS'>,
  ) {}

  /** The normalised URL the dispatcher will call, after the length and address checks (SSRF). */
  private async receiverUrl(value: string): Promise<string> {
    const url = new URL(value);
    // The dispatcher calls the normalised form; it can be longer than what was sent (IDN, escapes).
    if (url.href.length > WEBHOOK_URL_MAX_LENGTH) throw invalidUrl(`url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
    const problem = await this.policy.registrationProblem(url);
    if (problem) throw invalidUrl(problem);
    return url.href;
  }

  async create(accountId: string, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    const url = await this.receiverUrl(dto.url);
    const secret = newSecret();
    const row = await this.endpoints.createWithinLimit(
      accountId,
      { url, events: dto.events ?? null, secretSealed: this.secrets.seal(secret, accountId) },
      WEBHOOK_ENDPOINTS_MAX,
    );
    if (!row)
      throw new ApiError('limit_exceeded', `An account may register at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints; delete one first.`);
    const { id, events, status, disabled_reason, created_at } = toEndpointDto(row);
    // The contract's key order: the secret after the events.
    return { id, url: row.url, events, secret, status, disabled_reason, created_at };
  }

  async list(accountId: string): Promise<WebhookListDto> {
    return { webhooks: (await this.endpoints.list(accountId)).map(toEndpointDto) };
  }

  private async endpoint(accountId: string, id: string): Promise<EndpointSecrets> {
    const row = PATH_ID.test(id) ? await this.endpoints.find(accountId, id) : undefined;
    if (!row) throw noEndpoint(id);
    return row;
  }

  async get(accountId: string, id: string): Promise<WebhookEndpointDto> {
    return toEndpointDto(await this.endpoint(accountId, id));
  }

  async update(accountId: string, id: string, dto: UpdateWebhookDto): Promise<WebhookEndpointDto> {
    if (!PATH_ID.test(id)) throw noEndpoint(id);
    const url = dto.url === undefined ? undefined : await this.receiverUrl(dto.url);
    const row = await this.endpoints.update(accountId, id, {
      ...(url === undefined ? {} : { url }),
      ...(dto.events === undefined ? {} : { events: dto.events }),
      ...(dto.status === undefined ? {} : { status: dto.status }),
    });
    if (!row) throw noEndpoint(id);
    return toEndpointDto(row);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const deleted = PATH_ID.test(id) && (await this.endpoints.delete(accountId, id));
    if (!deleted) throw noEndpoint(id);
  }

  async rotateSecret(accountId: string, id: string): Promise<RotatedSecretDto> {
    if (!PATH_ID.test(id)) throw noEndpoint(id);
    const secret = newSecret();
    const expiresAt = await this.endpoints.rotateSecret(
      accountId,
      id,
      this.secrets.seal(secret, accountId),
      this.config.WEBHOOK_SECRET_OVERLAP_MS,
    );
    if (expiresAt === undefined) throw noEndpoint(id);
    return { secret, previous_expires_at: expiresAt };
  }

  async deliveriesOf(accountId: string, id: string, query: DeliveriesQueryDto): Promise<DeliveryListDto> {
    const endpoint = await this.endpoint(accountId, id);
    const after = query.after ?? 0;
    const page = await this.deliveries.page(endpoint.id, {
      after,
      limit: query.limit ?? DELIVERIES_PAGE_DEFAULT,
      ...(query.status ? { status: query.status } : {}),
    });
    return { ...page, deliveries: page.deliveries.map(toDeliveryDto) };
  }

  private async enabledEndpoint(accountId: string, id: string): Promise<EndpointSecrets> {
    const endpoint = await this.endpoint(accountId, id);
    if (endpoint.status !== 'enabled')
      throw new ApiError('conflict', `Webhook endpoint ${id} is disabled; enable it first (PATCH with "status": "enabled").`);
    return endpoint;
  }

  async resend(accountId: string, id: string, deliveryId: string): Promise<DeliveryDto> {
    const endpoint = await this.enabledEndpoint(accountId, id);
    const row = PATH_ID.test(deliveryId) ? await this.deliveries.resend(endpoint.id, deliveryId) : undefined;
    if (!row) throw new ApiError('not_found', `Webhook endpoint ${id} has no delivery ${deliveryId}.`);
    return toDeliveryDto(row);
  }

  async recover(accountId: string, id: string, since: string): Promise<RecoveredDto> {
    const from = parseTimestampInput(since);
    if (!from) {
      throw new ApiError('validation_failed', INVALID_FIELDS, [
        { path: 'since', message: 'since must be a timestamp with Z or an offset, such as 2026-11-20T00:00:00Z' },
      ]);
    }
    const endpoint = await this.enabledEndpoint(accountId, id);
    return { resent: await this.deliveries.recover(endpoint.id, from) };
  }

  /**
   * Sends a sample event of `kind` to this endpoint only, now, and reports the attempt: event id 0,
   * `X-SVC-Test: 1`, signed as deliveries are (both signatures during a rotation). Not in the feed,
   * not recorded; the address checks apply as to every attempt. Also to a disabled endpoint.
   */
  async test(accountId: string, id: string, kind: EventKind): Promise<TestDeliveryDto> {
    const endpoint = await this.endpoint(accountId, id);
    const event = { id: 0, event: kind, at: nowTimestamp(), data: sampleEventData(kind, { n: 0 }) } as PublicEvent;
    const previous = endpoint.previous_secret_sealed;
    const result = await this.sender.send({
      url: endpoint.url,
      secret: this.secrets.open(endpoint.secret_sealed, accountId),
      ...(previous ? { previousSecret: this.secrets.open(previous, accountId) } : {}),
      eventId: '0',
      kind,
      body: deliveryBody(event),
      test: true,
    });
    return { delivered: result.delivered, status_code: result.statusCode, duration_ms: result.durationMs, error: result.error };
  }
}
