import { loadConfig } from './config';
import { generateInternalKey } from './internal-auth';
import { DEFAULT_APP_URL, SERVICE_PORTS, serviceConfigSpec, serviceUrl, serviceUrlSetting } from './services';

describe('the service ports table', () => {
  it('gives each app a port of its own', () => {
    expect(new Set(Object.values(SERVICE_PORTS)).size).toBe(Object.keys(SERVICE_PORTS).length);
  });

  it('is the default of an app PORT; the URL settings reach its internal listener, PORT + 100', () => {
    const spec = { ...serviceConfigSpec('contacts-api', 'Port.'), KNOWLEDGE_API_URL: serviceUrl('knowledge-api', 'knowledge-api.') };
    const config = loadConfig(spec, {
      INTERNAL_PUBLIC_KEYS: `gateway:${generateInternalKey().publicKey}`,
      LOG_PATH_SECRET: 'a-real-secret-of-forty-characters-0123456',
    });
    expect(config.PORT).toBe(3001);
    expect(config.INTERNAL_PORT).toBe(3101);
    expect(config.KNOWLEDGE_API_URL).toBe('http://127.0.0.1:3103');
    expect(spec.PORT.desc).toBe('Port.');
    expect(spec.KNOWLEDGE_API_URL.desc).toBe('knowledge-api.');
  });

  it('puts the public address on the gateway', () => {
    expect(DEFAULT_APP_URL).toBe('http://localhost:3000');
  });

  it("names the setting of an app's address after the app", () => {
    expect(serviceUrlSetting('contacts-api')).toBe('CONTACTS_API_URL');
    expect(serviceUrlSetting('webhook-dispatcher')).toBe('WEBHOOK_DISPATCHER_URL');
    expect(serviceUrlSetting('chat')).toBe('CHAT_URL');
  });
});
