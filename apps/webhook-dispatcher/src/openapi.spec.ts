import { describeApi } from '@svc/platform';
import { app } from './app';

describe('webhook-dispatcher OpenAPI document', () => {
  let document: Awaited<ReturnType<typeof describeApi>>;

  beforeAll(async () => {
    document = await describeApi(app);
  });

  it('describes exactly the public routes, with the operation ids of the API', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      (['get', 'post', 'patch', 'delete'] as const).filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path} ${item[m]!.operationId}`),
    );
    expect(operations.sort()).toEqual([
      'DELETE /webhooks/{id} deleteWebhook',
      'GET /webhooks listWebhooks',
      'GET /webhooks/{id} getWebhook',
      'GET /webhooks/{id}/deliveries listWebhookDeliveries',
      'PATCH /webhooks/{id} updateWebhook',
      'POST /webhooks createWebhook',
      'POST /webhooks/{id}/deliveries/{deliveryId}/resend resendWebhookDelivery',
      'POST /webhooks/{id}/recover recoverWebhook',
      'POST /webhooks/{id}/rotate-secret rotateWebhookSecret',
      'POST /webhooks/{id}/test testWebhook',
    ]);
  });

  it('gives request and response schemas with examples, and the error responses with examples', () => {
    const post = document.paths['/webhooks']!.post!;
    expect(JSON.stringify(post.requestBody)).toContain('#/components/schemas/CreateWebhookDto');
    expect(JSON.stringify(post.responses['201'])).toContain('#/components/schemas/CreatedWebhookDto');
    const badRequest = JSON.stringify(post.responses['400']);
    for (const code of ['validation_failed', 'limit_exceeded', 'invalid_json']) expect(badRequest).toContain(`"code":"${code}"`);
    expect(JSON.stringify(document.paths['/webhooks']!.get!.responses['200'])).toContain('#/components/schemas/WebhookListDto');
    const remove = document.paths['/webhooks/{id}']!.delete!;
    expect(remove.responses['204']).toBeDefined();
    expect(JSON.stringify(remove.responses['404'])).toContain('"code":"not_found"');
    expect(JSON.stringify(remove.parameters)).toContain('"type":"integer"');

    const schemas = document.components!.schemas as Record<string, { properties: Record<string, { example?: unknown }> }>;
    for (const name of [
      'CreateWebhookDto',
      'CreatedWebhookDto',
      'WebhookEndpointDto',
      'UpdateWebhookDto',
      'DeliveryAttemptDto',
      'RotatedSecretDto',
      'TestDeliveryDto',
    ]) {
      for (const [property, schema] of Object.entries(schemas[name]!.properties))
        expect([name, property, schema.example]).not.toEqual([name, property, undefined]);
    }
    expect(Object.keys(schemas['WebhookEndpointDto']!.properties)).not.toContain('secret');
  });
});
