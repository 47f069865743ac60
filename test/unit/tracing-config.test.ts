import { context, propagation, trace } from '@opentelemetry/api';
import { ConfigError, loadConfig, loadTracingConfig } from '../../src/config';
import { startTracing, TRACING_OFF } from '../../src/observability/tracing';

const base = { DATABASE_URL: 'postgres://unused@localhost/unused' };

describe('the tracing switch', () => {
  it('is off unless OTEL_TRACES_EXPORTER names an exporter', () => {
    expect(loadTracingConfig({})).toEqual({ exporter: 'none' });
    expect(loadConfig(base).tracing).toEqual({ exporter: 'none' });
    expect(loadTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ exporter: 'otlp' });
    expect(loadConfig({ ...base, OTEL_TRACES_EXPORTER: 'console' }).tracing).toEqual({ exporter: 'console' });
  });

  it('OTEL_SDK_DISABLED=true turns it off whatever the exporter says', () => {
    expect(loadTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toEqual({ exporter: 'none' });
    expect(loadConfig({ ...base, OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }).tracing).toEqual({ exporter: 'none' });
  });

  it('refuses an exporter it does not have, naming the variable', () => {
    expect(() => loadTracingConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(ConfigError);
    expect(() => loadTracingConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadConfig({ ...base, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
  });

  it('off registers nothing: spans do not record and no trace context is propagated', () => {
    expect(startTracing({ exporter: 'none' }, { serviceName: 'test' })).toBe(TRACING_OFF);
    const span = trace.getTracer('test').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    expect(carrier).toEqual({});
    span.end();
  });
});
