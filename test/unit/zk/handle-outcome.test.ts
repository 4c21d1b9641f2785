import { getEventListeners } from 'node:events';
import { handleOutcome, HandleOutcome, NO_OUTCOME } from '../../../src/zk/handle-outcome';
import { MockClock } from '../../helpers/mock-clock';

/** Lets the promise reactions queued by a settled outcome or a fired timer run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An outcome the test settles by hand, as the binding's connect and close events settle ZkClient's. */
function pendingOutcome(): { outcome: Promise<HandleOutcome>; report(o: HandleOutcome): void } {
  let report!: (o: HandleOutcome) => void;
  const outcome = new Promise<HandleOutcome>((resolve) => (report = resolve));
  return { outcome, report };
}

describe('handleOutcome (ZkClient: a new handle must report an outcome within the session timeout)', () => {
  const sessionTimeoutMs = 6000;

  it('closes a handle with no outcome within the timeout and reports it not connected, so that it is replaced', async () => {
    const clock = new MockClock();
    const closing = new AbortController();
    const close = jest.fn();
    let result: HandleOutcome | undefined;
    void handleOutcome(pendingOutcome().outcome, sessionTimeoutMs, clock, closing.signal, close).then((r) => (result = r));
    clock.advance(sessionTimeoutMs - 1);
    await settle();
    expect(close).not.toHaveBeenCalled();
    expect(result).toBeUndefined();
    clock.advance(1);
    await settle();
    expect(close).toHaveBeenCalledTimes(1);
    // Not connected: replaceHandle's loop makes the next handle, as for one the binding closed.
    expect(result).toEqual({ connected: false, code: NO_OUTCOME });
    expect(clock.pendingTimers()).toBe(0);
    expect(getEventListeners(closing.signal, 'abort')).toHaveLength(0);
  });

  it('keeps a handle that connects in time, and its timer is gone', async () => {
    const clock = new MockClock();
    const closing = new AbortController();
    const close = jest.fn();
    const handle = pendingOutcome();
    const result = handleOutcome(handle.outcome, sessionTimeoutMs, clock, closing.signal, close);
    clock.advance(sessionTimeoutMs - 1);
    handle.report({ connected: true });
    await expect(result).resolves.toEqual({ connected: true });
    expect(clock.pendingTimers()).toBe(0);
    expect(getEventListeners(closing.signal, 'abort')).toHaveLength(0);
    // The deadline passing later does nothing to the kept handle.
    clock.advance(sessionTimeoutMs);
    await settle();
    expect(close).not.toHaveBeenCalled();
  });

  it('passes on a close by the binding in time with its state, without closing the handle again', async () => {
    const clock = new MockClock();
    const closing = new AbortController();
    const close = jest.fn();
    const handle = pendingOutcome();
    const result = handleOutcome(handle.outcome, sessionTimeoutMs, clock, closing.signal, close);
    clock.advance(10);
    handle.report({ connected: false, code: -112 });
    await expect(result).resolves.toEqual({ connected: false, code: -112 });
    clock.advance(sessionTimeoutMs);
    await settle();
    expect(close).not.toHaveBeenCalled();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends the wait at once when the client closes, leaving the handle to the client', async () => {
    const clock = new MockClock();
    const closing = new AbortController();
    const close = jest.fn();
    const result = handleOutcome(pendingOutcome().outcome, sessionTimeoutMs, clock, closing.signal, close);
    closing.abort();
    await expect(result).resolves.toEqual({ connected: false, code: undefined });
    expect(close).not.toHaveBeenCalled();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('leaves no timer and no listener behind over many handles, whichever way each wait ends', async () => {
    const clock = new MockClock();
    const closing = new AbortController();
    const close = jest.fn();
    for (let i = 0; i < 500; i++) {
      const handle = pendingOutcome();
      const result = handleOutcome(handle.outcome, sessionTimeoutMs, clock, closing.signal, close);
      if (i % 2 === 0) handle.report(i % 4 === 0 ? { connected: true } : { connected: false, code: -112 });
      else clock.advance(sessionTimeoutMs);
      await result;
    }
    expect(close).toHaveBeenCalledTimes(250);
    expect(clock.pendingTimers()).toBe(0);
    expect(getEventListeners(closing.signal, 'abort')).toHaveLength(0);
  });
});
