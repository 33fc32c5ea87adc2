import { API_ROUTES, AppRoute, INTERNAL_ROUTES, RouteMethod } from '@svc/contracts';
import { Controller, RequestMapping, RequestMethod, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MemberSession } from '../members/members.repository';
import { OwnerGuard, SessionGuard } from '../members/session.guard';
import { Upstream, Upstreams } from './upstreams';

/** A console route (under `/console/v1`) answered by a service's route, as the service answers it. */
export interface ServiceRoute {
  method: RouteMethod;
  path: string;
  upstream: Upstream;
  /** The service's path, with the same `:params`. */
  target: string;
  /** The API's features (keys, webhooks) need the Scale plan, as on the API. */
  scale: boolean;
  /** Only an owner may call it (keys, webhooks, the widget's allowed origins); an agent gets 403 `forbidden`. */
  owner: boolean;
}

/** The console's `path` for the service's route `target` (from the catalogue in @svc/contracts: method, service and path). */
const route = (path: string, target: AppRoute<Upstream>, scale = false, owner = false): ServiceRoute => ({
  method: target.method,
  path,
  upstream: target.app,
  target: target.path,
  scale,
  owner,
});
const CHAT_PREFIX = '/internal/chat';
const chat = (target: AppRoute<'chat'>, owner = false): ServiceRoute => route(target.path.slice(CHAT_PREFIX.length), target, false, owner);
const keys = (path: string, target: AppRoute<'gateway'>): ServiceRoute => route(path, target, true, true);
/** A service route the console serves at the same path. */
const same = (target: AppRoute<Upstream>, scale = false, owner = false): ServiceRoute => route(target.path, target, scale, owner);
const webhooks = (target: AppRoute<'webhook-dispatcher'>): ServiceRoute => same(target, true, true);

const { chat: CHAT, contacts: CONTACTS, gateway: GATEWAY, knowledge: KNOWLEDGE } = INTERNAL_ROUTES;
const { contacts: API_CONTACTS, knowledge: API_KNOWLEDGE, webhooks: WEBHOOKS } = API_ROUTES;

/**
 * What the console's pages call, in one table: each the member's account's view of a service route
 * (the service checks the input and scopes every query to the account named in the signed context).
 */
export const SERVICE_ROUTES: ServiceRoute[] = [
  // Inbox (the chat).
  chat(CHAT.conversations),
  chat(CHAT.conversation),
  chat(CHAT.reply),
  chat(CHAT.whatsappTemplate),
  // Bookings, analytics, "ask as a customer", widget settings (the chat).
  chat(CHAT.bookings),
  chat(CHAT.createBooking),
  chat(CHAT.updateBooking),
  chat(CHAT.analytics),
  chat(CHAT.preview),
  chat(CHAT.widgetSettings),
  chat(CHAT.setWidgetSettings, true),
  // Customers (contacts-api): find by email or phone, open by ref or by svc_id.
  same(API_CONTACTS.list),
  same(API_CONTACTS.get),
  route('/customers/:svcId', CONTACTS.bySvcId),
  route('/customers/:svcId/consents', CONTACTS.consents),
  // Knowledge (knowledge-api).
  same(API_KNOWLEDGE.list),
  // What the team taught the assistant (knowledge-api): Teach in a conversation, the Knowledge page's list and Remove.
  route('/taught', KNOWLEDGE.teach),
  route('/taught', KNOWLEDGE.taught),
  route('/taught/:id', KNOWLEDGE.untaught),
  // The account and, for owners, its keys (the gateway owns them).
  route('/account', GATEWAY.account),
  keys('/keys', GATEWAY.keys),
  keys('/keys', GATEWAY.createKey),
  keys('/keys/:id/revoke', GATEWAY.revokeKey),
  // Webhooks (webhook-dispatcher): the API's own routes, owners only.
  webhooks(WEBHOOKS.list),
  webhooks(WEBHOOKS.create),
  webhooks(WEBHOOKS.get),
  webhooks(WEBHOOKS.update),
  webhooks(WEBHOOKS.remove),
  webhooks(WEBHOOKS.deliveries),
  webhooks(WEBHOOKS.resend),
  webhooks(WEBHOOKS.recover),
  webhooks(WEBHOOKS.test),
  webhooks(WEBHOOKS.rotateSecret),
];

export const CONSOLE_API = '/console/v1';

/** The service's path for a call: the route's target with the call's parameters (encoded) and query string. */
export function targetPath(target: string, params: Record<string, string>, url: string): string {
  const path = target.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = url.indexOf('?');
  return query === -1 ? path : path + url.slice(query);
}

/**
 * The table's routes, one method each (made from SERVICE_ROUTES below, with Nest's own decorators):
 * a signed-in member acting in an account (SessionGuard; OwnerGuard for an owner's route), the
 * service's answer passed on with its status.
 */
@ApiExcludeController()
@Controller(CONSOLE_API.slice(1))
export class ServiceRoutesController {
  constructor(private readonly upstreams: Upstreams) {}

  async forward(entry: ServiceRoute, request: FastifyRequest & { member: MemberSession }, reply: FastifyReply): Promise<FastifyReply> {
    const context = await this.upstreams.context(request.member, request.id);
    if (entry.scale && context.account.plan !== 'scale') {
      throw new ApiError('plan_required', 'API keys and webhooks need the Scale plan (Settings → Plan).');
    }
    const path = targetPath(entry.target, request.params as Record<string, string>, request.url);
    const body = entry.method === 'GET' || entry.method === 'DELETE' ? undefined : (request.body ?? {});
    const response = await this.upstreams.call(entry.upstream, entry.method, path, context, body);
    reply.code(response.status);
    return response.body === undefined ? reply.send() : reply.send(response.body);
  }
}

SERVICE_ROUTES.forEach((entry, index) => {
  const prototype = ServiceRoutesController.prototype as unknown as Record<string, unknown>;
  const name = `${entry.method.toLowerCase()}${index}`;
  prototype[name] = function (this: ServiceRoutesController, request: FastifyRequest & { member: MemberSession }, reply: FastifyReply) {
    return this.forward(entry, request, reply);
  };
  const descriptor = Object.getOwnPropertyDescriptor(prototype, name) as PropertyDescriptor;
  RequestMapping({ method: RequestMethod[entry.method], path: entry.path })(prototype, name, descriptor);
  UseGuards(entry.owner ? OwnerGuard : SessionGuard)(prototype, name, descriptor);
  Req()(prototype, name, 0);
  Res()(prototype, name, 1);
});
