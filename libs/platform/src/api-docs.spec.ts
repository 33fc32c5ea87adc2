import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DECORATORS } from '@nestjs/swagger/dist/constants';
import { ApiInvalidQueryResponse, NoContent, PublicApiController, Route } from './api-docs';

@PublicApiController('Things')
class ThingsController {
  @Route({ app: 'things-api', method: 'GET', path: '/things' })
  @ApiInvalidQueryResponse('`limit` is out of range.', { path: 'limit', message: 'limit must be a whole number from 1 to 200' })
  list(): void {}

  @NoContent('Removed.')
  remove(): void {}
}

describe('the API documentation decorators', () => {
  it('make a public controller: no path of its own (its routes carry theirs), its tag and the API key', () => {
    expect(Reflect.getMetadata(PATH_METADATA, ThingsController)).toBe('/');
    expect(Reflect.getMetadata(DECORATORS.API_TAGS, ThingsController)).toEqual(['Things']);
    expect(Reflect.getMetadata(DECORATORS.API_SECURITY, ThingsController)).toEqual([{ bearer: [] }]);
  });

  it("serve a catalogue route with Nest's own method and path", () => {
    expect(Reflect.getMetadata(METHOD_METADATA, ThingsController.prototype.list)).toBe(RequestMethod.GET);
    expect(Reflect.getMetadata(PATH_METADATA, ThingsController.prototype.list)).toBe('/things');
  });

  it('send 204 where they document it', () => {
    const remove = ThingsController.prototype.remove;
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, remove)).toBe(204);
    expect(Reflect.getMetadata(DECORATORS.API_RESPONSE, remove)).toEqual({ 204: expect.objectContaining({ description: 'Removed.' }) });
  });

  it('document a bad query string as invalid_parameter with its example problem', () => {
    const responses = Reflect.getMetadata(DECORATORS.API_RESPONSE, ThingsController.prototype.list);
    expect(responses[400]).toMatchObject({
      description: '`limit` is out of range.',
      example: {
        error: {
          code: 'invalid_parameter',
          message: 'The query string has invalid parameters.',
          details: [{ path: 'limit', message: 'limit must be a whole number from 1 to 200' }],
        },
      },
    });
  });
});
