/**
 * What a starting process asks JetStream again (`askPatiently`): the answers a cluster gives while it forms, not a
 * refusal. CI's three-node cluster once answered "no suitable peers for placement" to a stream check made just after
 * its meta leader was elected, and the process gave up at once.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import { createLogger } from '../src';
import { askPatiently } from '../src/bus/streams';

const logger = createLogger('ask-patiently-test', 'silent');
const answer = (err_code: number, description: string) => new JetStreamApiError({ err_code, code: 500, description });
const noPeers = () => answer(10005, 'no suitable peers for placement');

/** A step that throws each of `failures` in turn, then answers 'done'; and how often it was asked. */
function stepFailing(...failures: Error[]) {
  const asked = { times: 0 };
  const step = async () => {
    const failure = failures[asked.times++];
    if (failure) throw failure;
    return 'done';
  };
  return { step, asked };
}

test('a cluster that cannot place a replicated stream yet is asked again until it can', async () => {
  const { step, asked } = stepFailing(noPeers(), noPeers());
  await expect(askPatiently(step, 30_000, logger, 'the stream check')).resolves.toBe('done');
  expect(asked.times).toBe(3);
});

test('that answer for good fails with it once the patience runs out; a refusal fails at once', async () => {
  const forGood = stepFailing(noPeers(), noPeers(), noPeers());
  await expect(askPatiently(forGood.step, 1_500, logger, 'the stream check')).rejects.toThrow('no suitable peers for placement');
  expect(forGood.asked.times).toBe(2);
  const refused = stepFailing(answer(10026, 'maximum consumers limit reached'));
  await expect(askPatiently(refused.step, 30_000, logger, 'the stream check')).rejects.toThrow('maximum consumers limit reached');
  expect(refused.asked.times).toBe(1);
});
