import { OutageWatchdog, createLogger, dependencyUp } from '../src';

const logger = createLogger('watchdog-test', 'silent');

/** A dependency the test switches on and off, and a clock the test moves. */
function setUp(limitMs = 30_000) {
  const clock = { now: 1_000_000 };
  const up = { store: true, broker: true };
  const outages: Array<{ name: string; downForMs: number }> = [];
  const watchdog = new OutageWatchdog({
    probes: [
      { name: 'MongoDB', check: async () => (up.store ? undefined : Promise.reject(new Error('no server'))) },
      { name: 'NATS', check: async () => (up.broker ? undefined : Promise.reject(new Error('disconnected'))) },
    ],
    limitMs,
    logger,
    now: () => clock.now,
    onOutage: (name, downForMs) => outages.push({ name, downForMs }),
  });
  return { clock, up, outages, watchdog };
}

describe('outage watchdog', () => {
  it('rides out an outage shorter than the limit', async () => {
    const { clock, up, outages, watchdog } = setUp();
    up.store = false;
    for (let i = 0; i < 5; i++) {
      clock.now += 5_000;
      await watchdog.checkOnce();
    }
    up.store = true;
    clock.now += 5_000;
    await watchdog.checkOnce();
    // Down again later: the limit counts from the last good check, not from the first outage.
    up.store = false;
    clock.now += 29_000;
    await watchdog.checkOnce();
    expect(outages).toEqual([]);
  });

  it('exports whether each dependency answered its last check (binzip_dependency_up)', async () => {
    const { up, watchdog } = setUp();
    const value = async (dependency: string) => (await dependencyUp.get()).values.find((v) => v.labels.dependency === dependency)?.value;
    await watchdog.checkOnce();
    expect([await value('MongoDB'), await value('NATS')]).toEqual([1, 1]);
    up.broker = false;
    await watchdog.checkOnce();
    expect([await value('MongoDB'), await value('NATS')]).toEqual([1, 0]);
    up.broker = true;
    await watchdog.checkOnce();
    expect(await value('NATS')).toBe(1);
  });

  it('gives up once, naming the dependency, when it stays away beyond the limit', async () => {
    const { clock, up, outages, watchdog } = setUp();
    await watchdog.checkOnce();
    up.broker = false;
    clock.now += 30_000;
    await watchdog.checkOnce();
    expect(outages).toEqual([]);
    clock.now += 1;
    await watchdog.checkOnce();
    clock.now += 5_000;
    await watchdog.checkOnce();
    expect(outages).toEqual([{ name: 'NATS', downForMs: 30_001 }]);
  });

  it('a check that never answers counts as down', async () => {
    const clock = { now: 0 };
    const outages: string[] = [];
    const watchdog = new OutageWatchdog({
      probes: [{ name: 'MongoDB', check: () => new Promise<void>(() => undefined) }],
      limitMs: 1_000,
      checkTimeoutMs: 1,
      logger,
      now: () => clock.now,
      onOutage: (name) => outages.push(name),
    });
    clock.now = 1_001;
    await watchdog.checkOnce();
    expect(outages).toEqual(['MongoDB']);
  });

  it('does not count time the process itself was stopped (SIGSTOP) as an outage', async () => {
    jest.useFakeTimers();
    try {
      const answers: boolean[] = [];
      const outages: string[] = [];
      const watchdog = new OutageWatchdog({
        // The first check after the pause fails (the driver's connections went stale), the next ones answer.
        probes: [{ name: 'MongoDB', check: async () => ((answers.shift() ?? true) ? undefined : Promise.reject(new Error('stale connection'))) }],
        limitMs: 30_000,
        logger,
        onOutage: (name) => outages.push(name),
      });
      watchdog.start();
      await jest.advanceTimersByTimeAsync(5_000);
      // Frozen for 40 s: the clock moves, no timer runs.
      jest.setSystemTime(Date.now() + 40_000);
      answers.push(false);
      await jest.advanceTimersByTimeAsync(5_000);
      await jest.advanceTimersByTimeAsync(5_000);
      expect(outages).toEqual([]);
      await watchdog.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it('checks every fifth of the limit, between 250 ms and 5 s', () => {
    expect(setUp(30_000).watchdog.intervalMs).toBe(5_000);
    expect(setUp(2_000).watchdog.intervalMs).toBe(400);
    expect(setUp(500).watchdog.intervalMs).toBe(250);
  });
});
