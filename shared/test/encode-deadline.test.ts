/**
 * Issue 34 item 6: an upload is encoded only when it can be done before its answer is due, and work whose client
 * has gone or whose deadline has passed stops, so the gateway never answers 504 while a picture is still being
 * encoded. What can be shown without timing: the slot wait bounded by the caller's time, the stop between stages,
 * and the learned cost.
 */
import sharp from 'sharp';
import { EncodeAbandoned, EncodeCost, encodePicture, EncodeNotStarted, encodeSlots } from '../src/media';

const limits = { maxInputPixels: 50_000_000, maxSide: 256, thumbnailSide: 64 };
const picture = () =>
  sharp({ create: { width: 320, height: 200, channels: 3, background: '#3a7' } })
    .jpeg()
    .toBuffer();

describe('encodeSlots with the time an answer has left', () => {
  it('with no time to wait, a busy slot refuses at once; a free one starts', async () => {
    const slot = encodeSlots({ limit: 1, maxWaitMs: 60_000 });
    let release!: () => void;
    const running = slot(() => new Promise<void>((resolve) => (release = resolve)));
    const started = Date.now();
    await expect(slot(async () => 'never', undefined, 0)).rejects.toEqual(new EncodeNotStarted('busy'));
    await expect(slot(async () => 'never', undefined, -500)).rejects.toEqual(new EncodeNotStarted('busy'));
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
    await running;
    await expect(slot(async () => 'done', undefined, 0)).resolves.toBe('done');
  });

  it("waits no longer than the caller's bound when it is shorter than the slot's own", async () => {
    const slot = encodeSlots({ limit: 1, maxWaitMs: 60_000 });
    let release!: () => void;
    const running = slot(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(slot(async () => 'never', undefined, 50)).rejects.toEqual(new EncodeNotStarted('busy'));
    release();
    await running;
  });
});

describe('encodePicture under a deadline', () => {
  it('does not start past its deadline, nor for a client already gone', async () => {
    const input = await picture();
    await expect(encodePicture(input, limits, { deadlineAt: Date.now() - 1 })).rejects.toEqual(new EncodeAbandoned('late'));
    const gone = new AbortController();
    gone.abort();
    await expect(encodePicture(input, limits, { deadlineAt: Date.now() + 60_000, signal: gone.signal })).rejects.toEqual(new EncodeAbandoned('gone'));
  });

  it('stops between its stages: the deadline passed or the client gone after the full rendition, no thumbnail is made', async () => {
    const input = await picture();
    const deadlineAt = 1_000_000;
    // The clock is read once before each stage: in time for the full rendition, past the deadline for the thumbnail.
    const readings = [deadlineAt - 5_000, deadlineAt + 1];
    await expect(encodePicture(input, limits, { deadlineAt, now: () => readings.shift() ?? deadlineAt + 1 })).rejects.toEqual(new EncodeAbandoned('late'));
    const client = new AbortController();
    // The client goes while the full rendition is made (the clock's first reading is taken just before it).
    const gone = encodePicture(input, limits, {
      deadlineAt,
      signal: client.signal,
      now: () => {
        client.abort();
        return deadlineAt - 5_000;
      },
    });
    await expect(gone).rejects.toEqual(new EncodeAbandoned('gone'));
  });

  it('without a deadline (or in time) the picture is encoded as before', async () => {
    const input = await picture();
    const encoded = await encodePicture(input, limits, { deadlineAt: Date.now() + 60_000 });
    expect(encoded.full.width).toBe(256);
    expect(encoded.thumbnail.width).toBe(64);
    expect((await encodePicture(input, limits)).hash).toBe(encoded.hash);
  });
});

describe('EncodeCost', () => {
  it('starts from its guess and follows what encodes take, big pictures only', () => {
    const cost = new EncodeCost(60, 0.5);
    expect(cost.estimate(50_000_000)).toBe(Math.ceil(50 * 60 * 1.25 + 50));
    cost.observe(500_000, 10_000);
    expect(cost.rate).toBe(60);
    cost.observe(10_000_000, 2_000); // 200 ms per megapixel: a busy machine
    expect(cost.rate).toBe(130);
    cost.observe(10_000_000, 600); // 60: quiet again
    expect(cost.rate).toBe(95);
    expect(cost.estimate(20_000_000)).toBe(Math.ceil(20 * 95 * 1.25 + 50));
  });
});
