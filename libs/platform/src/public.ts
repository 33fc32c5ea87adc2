import { SetMetadata } from '@nestjs/common';

export const PUBLIC = Symbol('public');

/** Marks a controller or route that needs no gateway context (health, metrics). */
export const Public = (): ClassDecorator & MethodDecorator => SetMetadata(PUBLIC, true);
