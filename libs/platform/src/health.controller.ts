import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from './public';
import { ReadinessService } from './readiness.service';

@Public()
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process answers. It checks no dependency, so an outage never restarts pods. */
  @Get('healthz')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 `ready`, 200 `degraded` (only non-critical checks fail), else 503 `not_ready`. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const { ready, degraded, checks } = await this.readiness.report();
    if (ready && degraded.length > 0) await reply.code(200).send({ status: 'degraded', degraded, checks });
    else await reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  }
}
