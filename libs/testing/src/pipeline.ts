import { RunningProcess } from './processes';
import { startRelay, TestProducer } from './producer';
import { Stack, StackOptions, startStack } from './stack';

/** events-api behind a gateway, fed by a producer's outbox and its relay: the path a chat event takes into the feed. */
export interface Pipeline {
  stack: Stack;
  producer: TestProducer;
  relay: RunningProcess;
  stop(): Promise<void>;
}

/** A producer writing to the stack's database, and its relay publishing to the stack's broker. */
export async function startProducer(stack: Stack): Promise<Pick<Pipeline, 'producer' | 'relay'>> {
  const producer = await TestProducer.create(stack.db.url);
  try {
    const relay = await startRelay({ DATABASE_URL: stack.db.url, RABBITMQ_URL: stack.env['RABBITMQ_URL']! });
    return { producer, relay };
  } catch (err) {
    await producer.close();
    throw err;
  }
}

export async function startPipeline(options: StackOptions = {}): Promise<Pipeline> {
  const stack = await startStack(['events-api'], options);
  const { producer, relay } = await startProducer(stack);
  return {
    stack,
    producer,
    relay,
    stop: async () => {
      await relay.stop();
      await producer.close();
      await stack.stop();
    },
  };
}

/** A pipeline for the suite it is declared in (at the top of its `describe`): started before its tests, stopped after them. */
export function suitePipeline(options: StackOptions = {}): Pipeline {
  let started: Pipeline | undefined;
  beforeAll(async () => {
    started = await startPipeline(options);
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });
  const running = (): Pipeline => {
    if (!started) throw new Error('the suite pipeline starts in beforeAll: use it in a test');
    return started;
  };
  return {
    get stack() {
      return running().stack;
    },
    get producer() {
      return running().producer;
    },
    get relay() {
      return running().relay;
    },
    stop: () => running().stop(),
  };
}
