/**
 * Repeats `probe` every 10 ms until it returns true or `deadlineMs` passes; returns the
 * elapsed milliseconds, or throws. For effects that travel asynchronously between
 * processes (NOTIFY, job workers), where there is no event in the test's reach to await.
 */
export async function within(deadlineMs: number, probe: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - start;
    if (performance.now() - start > deadlineMs) throw new Error(`not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
