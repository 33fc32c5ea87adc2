import { applyDecorators, Controller, HttpCode, RequestMapping, RequestMethod } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { AppRoute, ErrorDetailDto, errorExample, ErrorResponseDto, INVALID_PARAMETERS } from '@svc/contracts';

/** A controller of the public API (below `/api/v1`, an API key in `Authorization: Bearer`), under `tag` in the reference. */
export function PublicApiController(tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(), Controller());
}

/** Serves a route of the catalogue (`API_ROUTES`, `INTERNAL_ROUTES` in @svc/contracts): its method and path, written there once. */
export function Route(route: AppRoute): MethodDecorator {
  return RequestMapping({ method: RequestMethod[route.method], path: route.path });
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
