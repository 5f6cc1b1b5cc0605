import express from 'express';
import request from 'supertest';
import { metricsHandler } from '../src/core/telemetry';

/** The value of one sample line of the Prometheus text, e.g. `name{a="b"}`; NaN when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('/metrics: event-loop delay and GC pauses since the previous scrape', () => {
  const app = express().get('/metrics', metricsHandler());
  const scrape = async () => (await request(app).get('/metrics').expect(200)).text;

  it('shows a stall of the event loop in the window it happened in, and not in the next one', async () => {
    await scrape();
    await pause(20);
    const blockedUntil = Date.now() + 250;
    while (Date.now() < blockedUntil) {
      // the event loop is held, as a long synchronous rendering would hold it
    }
    await pause(20);
    const stalled = await scrape();
    expect(sample(stalled, 'binzip_event_loop_delay_seconds{quantile="1"}')).toBeGreaterThanOrEqual(0.2);
    // The next window starts after the stall (a loaded machine may still delay a timer, never by as much).
    await pause(50);
    const quiet = await scrape();
    expect(sample(quiet, 'binzip_event_loop_delay_seconds{quantile="1"}')).toBeLessThan(0.2);
    expect(sample(quiet, 'binzip_event_loop_delay_seconds{quantile="0.5"}')).toBeLessThan(0.05);
  });

  it('counts garbage-collection pauses and their lengths', async () => {
    await scrape();
    let keep: number[][] = [];
    for (let i = 0; i < 200; i++) {
      keep = [];
      for (let j = 0; j < 2_000; j++) keep.push(new Array<number>(50).fill(j));
    }
    expect(keep.length).toBe(2_000);
    await pause(20);
    const text = await scrape();
    expect(sample(text, 'binzip_gc_pauses')).toBeGreaterThan(0);
    expect(sample(text, 'binzip_gc_pause_seconds{quantile="1"}')).toBeGreaterThan(0);
    const next = await scrape();
    expect(sample(next, 'binzip_gc_pauses')).toBeLessThan(sample(text, 'binzip_gc_pauses'));
  });
});
