/** The last task queued per file path; removed when the queue drains. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `work` once every task queued earlier for the same file path (by any store instance in this
 * process) has settled, so that a check and the write that depends on it are not interleaved with
 * another write of that file. Other processes are not excluded.
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(file) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => done);
  tails.set(file, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(file) === tail) tails.delete(file);
  }
}
