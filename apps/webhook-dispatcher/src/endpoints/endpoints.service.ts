import { Injectable } from '@nestjs/common';
import { CreatedWebhookDto, CreateWebhookDto, WEBHOOK_ENDPOINTS_MAX, WEBHOOK_URL_MAX_LENGTH, WebhookEndpointDto, WebhookListDto } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { randomBytes } from 'node:crypto';
import { AddressPolicy } from '../security/address-policy';
import { SecretBox } from '../security/secret-box';
import { EndpointRow, EndpointsRepository } from './endpoints.repository';

/** Path ids are positive bigints; anything else names no endpoint. */
const ENDPOINT_ID = /^[1-9]\d{0,17}$/;

function toEndpointDto(row: EndpointRow): WebhookEndpointDto {
  return { id: Number(row.id), url: row.url, events: row.events, status: 'active', created_at: row.created_at };
}

function invalidUrl(message: string): ApiError {
  return new ApiError('validation_failed', 'The request has invalid fields.', [{ path: 'url', message }]);
}

/** Registration rules: https receivers on public addresses, known kinds, 10 per account, a secret shown once. */
@Injectable()
export class EndpointsService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly policy: AddressPolicy,
    private readonly secrets: SecretBox,
  ) {}

  async create(accountId: string, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    const url = new URL(dto.url);
    // The dispatcher calls the normalised form; it can be longer than what was sent (IDN, escapes).
    if (url.href.length > WEBHOOK_URL_MAX_LENGTH) throw invalidUrl(`url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
    const problem = await this.policy.registrationProblem(url);
    if (problem) throw invalidUrl(problem);
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const row = await this.endpoints.createWithinLimit(accountId, { url: url.href, events: dto.events ?? null, secretSealed: this.secrets.seal(secret, accountId) }, WEBHOOK_ENDPOINTS_MAX);
    if (!row) throw new ApiError('limit_exceeded', `An account may register at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints; delete one first.`);
    const { id, events, status, created_at } = toEndpointDto(row);
    return { id, url: row.url, events, secret, status, created_at };
  }

  async list(accountId: string): Promise<WebhookListDto> {
    return { webhooks: (await this.endpoints.list(accountId)).map(toEndpointDto) };
  }

  async delete(accountId: string, id: string): Promise<void> {
    const deleted = ENDPOINT_ID.test(id) && (await this.endpoints.delete(accountId, id));
    if (!deleted) throw new ApiError('not_found', `There is no webhook endpoint ${id}.`);
  }
}
