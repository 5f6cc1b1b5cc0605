/**
 * Wraps a script's clean-up (streams, databases, processes it made on shared stores) so that it runs once,
 * whether the script ends, fails or is interrupted: on SIGINT/SIGTERM it runs, then the process exits 130.
 * A second signal during the clean-up exits at once.
 */
export function onceOrInterrupted(cleanUp: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  const once = () => (running ??= cleanUp());
  const onSignal = (signal: NodeJS.Signals) => {
    if (running) process.exit(130);
    console.error(`${signal}: cleaning up before exiting`);
    once().then(
      () => process.exit(130),
      (err: Error) => {
        console.error(`clean-up failed: ${err.message}`);
        process.exit(130);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return once;
}
