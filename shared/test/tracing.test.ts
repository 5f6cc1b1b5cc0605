import { Writable } from 'node:stream';
import winston from 'winston';
import { z } from 'zod';
import { createLogger, defineEvent, requestContext, startTracing, tracingEnabled } from '../src';
import { producerStream } from './fixtures/streams';

const communityStream = producerStream('COMMUNITY');

/**
 * Tracing is off unless an OTLP endpoint is set, and off means nothing: no trace is stored with an outbox event
 * and log lines carry no trace ids. (On, across real processes: test/e2e/tracing.e2e.test.ts.)
 */
describe('tracing switch', () => {
  it('is on only with an OTLP endpoint, and OTEL_SDK_DISABLED wins', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('when off, stores no trace with an event and writes no trace id in log lines', async () => {
    const tracing = startTracing('tracing-test', {});
    expect(tracing.enabled).toBe(false);
    const tested = defineEvent({ subject: 'community.test', stream: communityStream, version: 1, schema: z.object({}) });
    const event = requestContext.run({ requestId: 'req-1' }, () => tested.outbox({}));
    expect(event).toEqual({
      id: expect.any(String),
      subject: 'community.test',
      data: { v: 1, eventId: event.id },
      createdAt: expect.any(Date),
      requestId: 'req-1',
    });

    const lines: string[] = [];
    const logger = createLogger('tracing-test', 'info');
    logger.clear().add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) }) }));
    requestContext.run({ requestId: 'req-2' }, () => logger.info('hello'));
    expect(JSON.parse(lines[0])).toMatchObject({ message: 'hello', requestId: 'req-2' });
    expect(JSON.parse(lines[0])).not.toHaveProperty('traceId');
    await tracing.stop();
  });
});
