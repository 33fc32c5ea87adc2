import { applyDecorators, Controller, HttpCode } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ErrorDetailDto, errorExample, ErrorResponseDto, INVALID_PARAMETERS } from '@svc/contracts';

/** A controller of the public API (`/api/v1/{path}`, an API key in `Authorization: Bearer`), under `tag` in the reference. */
export function PublicApiController(path: string, tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(), Controller(path));
}

/** 204 without a body, and the reference says so (`description`: what happened). */
export function NoContent(description: string): MethodDecorator {
  return applyDecorators(HttpCode(204), ApiNoContentResponse({ description }));
}

/** Documents the 400 of a route's query string (`invalid_parameter`), with `problem` as the example's detail. */
export function ApiInvalidQueryResponse(description: string, problem: ErrorDetailDto): MethodDecorator {
  return ApiBadRequestResponse({
    type: ErrorResponseDto,
    description,
    example: errorExample('invalid_parameter', INVALID_PARAMETERS, [problem]),
  });
}
