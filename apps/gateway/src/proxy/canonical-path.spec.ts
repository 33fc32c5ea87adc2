import { canonicalPath } from './canonical-path';

describe('canonicalPath', () => {
  it.each([
    ['/api/v1/events', '/api/v1/events'],
    ['/%61pi/v1/events', '/api/v1/events'],
    ['/%41%50%49', '/API'],
    ['/api/v1/contacts/a%7Eb%2D%5F%2e', '/api/v1/contacts/a~b-_.'],
    ['/api/v1/contacts/', '/api/v1/contacts/'],
  ])('decodes escaped unreserved characters: %s → %s', (path, expected) => {
    expect(canonicalPath(path)).toEqual({ path: expected });
  });

  it.each([
    '/api/v1/contacts/a%2Fb',
    '/api/v1/contacts/caf%C3%A9',
    '/api/v1/contacts/a%20b',
    '/api/v1/contacts/100%25',
    '/api/v1/contacts/%ZZ',
  ])('keeps every other escape as sent: %s', (path) => {
    expect(canonicalPath(path)).toEqual({ path });
  });

  it.each([
    '/api/v1/../whoami',
    '/api/v1/%2e%2e/whoami',
    '/api/v1/%2E./whoami',
    '/api/v1/./events',
    '/api/v1/contacts/%2e',
    '/api/v1/contacts/..',
  ])('refuses a dot segment: %s', (path) => {
    expect(canonicalPath(path)).toEqual({ refused: expect.stringContaining('".."') });
  });

  it.each(['//api/v1', '//api/v1/whoami', '/api/v1//whoami', '/api//v1/events'])('refuses an empty segment: %s', (path) => {
    expect(canonicalPath(path)).toEqual({ refused: expect.stringContaining('//') });
  });
});
