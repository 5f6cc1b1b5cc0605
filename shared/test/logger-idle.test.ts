import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The logger writes standard output in batches off the event loop (shared/src/core/telemetry.ts): a line is
 * flushed shortly after it is logged, and a process with nothing to log makes no writes (an idle replica's cost).
 */
jest.setTimeout(30_000);

it('flushes a line within a few hundred milliseconds and writes nothing while there is nothing to log', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'idle-logger.ts')], {
    cwd: path.join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect({ code, stderr: stderr.includes('afterLine') ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('"message":"the one line"');
  const counts = JSON.parse(stderr.trim().split('\n').pop() ?? '{}') as { afterLine: number; afterIdleSecond: number };
  expect(counts.afterLine).toBeGreaterThanOrEqual(1);
  expect(counts.afterIdleSecond).toBe(counts.afterLine);
});
