import { otlpProtocol, tracingRequested } from './start';
import { currentTraceparent, serverSpan, withTraceparent } from './trace-context';

describe('tracing: off unless the standard variables ask for it', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
  ])('%j → %s', (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });

  it('exports http/protobuf unless http/json is asked for; other protocols are refused by name', () => {
    expect(otlpProtocol({})).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe(
      'http/protobuf',
    );
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/only http\/protobuf and http\/json.*grpc/);
  });

  it('without tracing started, nothing is kept and work runs as it would', () => {
    expect(currentTraceparent()).toBeUndefined();
    const call = serverSpan('GET', { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(call.recorded).toBeUndefined();
    let ran = false;
    call.run(() => (ran = currentTraceparent() === undefined));
    call.end('/x', 200);
    expect(ran).toBe(true);
    expect(withTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', () => currentTraceparent() ?? 'none')).toBe('none');
  });
});
