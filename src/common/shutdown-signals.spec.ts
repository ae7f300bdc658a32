import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleShutdownSignals } from './shutdown-signals.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

describe('handleShutdownSignals', () => {
  const saved = SIGNALS.map((signal) => [signal, process.listeners(signal)] as const);
  afterEach(() => {
    vi.restoreAllMocks();
    for (const [signal, listeners] of saved) {
      process.removeAllListeners(signal);
      for (const listener of listeners) process.on(signal, listener);
    }
  });

  it('starts the shutdown once, and a second signal during it forces the exit (code 1)', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const onSignal = vi.fn(() => new Promise<void>(() => {}));
    handleShutdownSignals(onSignal);

    process.emit('SIGTERM');
    expect(onSignal.mock.calls).toEqual([['SIGTERM']]);
    expect(exit).not.toHaveBeenCalled();

    process.emit('SIGINT');
    expect(onSignal).toHaveBeenCalledTimes(1);
    expect(exit.mock.calls).toEqual([[1]]);
  });
});
