import { AppError, CONFLICT, DEFAULT_CONFLICT_ATTEMPTS, retryOnConflict } from '../src';

const noPause = async () => undefined;

describe('retryOnConflict', () => {
  it('returns the first attempt that did not lose its race, pausing only between attempts', async () => {
    const pauses: number[] = [];
    const seen: number[] = [];
    const result = await retryOnConflict(
      async (n) => {
        seen.push(n);
        return n < 2 ? CONFLICT : 'written';
      },
      { pause: async (n) => void pauses.push(n) },
    );
    expect(result).toBe('written');
    expect(seen).toEqual([0, 1, 2]);
    expect(pauses).toEqual([1, 2]);
  });

  it('gives up after the configured attempts with C0004 (429), never a plain error', async () => {
    let calls = 0;
    const outcome = retryOnConflict(
      async () => {
        calls++;
        return CONFLICT;
      },
      { pause: noPause },
    );
    await expect(outcome).rejects.toBeInstanceOf(AppError);
    await expect(outcome).rejects.toMatchObject({ code: 'C0004', status: 429 });
    expect(calls).toBe(DEFAULT_CONFLICT_ATTEMPTS);
    await expect(retryOnConflict(async () => CONFLICT, { attempts: 3, pause: noPause })).rejects.toMatchObject({ code: 'C0004' });
  });

  it('stops at once when an attempt throws (a rule the fresh read broke)', async () => {
    let calls = 0;
    const outcome = retryOnConflict(
      async () => {
        calls++;
        throw AppError.notFound();
      },
      { pause: noPause },
    );
    await expect(outcome).rejects.toMatchObject({ code: 'C0001' });
    expect(calls).toBe(1);
  });

  it('a falsy result is a result, not a conflict', async () => {
    expect(await retryOnConflict(async () => undefined, { pause: noPause })).toBeUndefined();
    expect(await retryOnConflict(async () => false, { pause: noPause })).toBe(false);
  });
});
