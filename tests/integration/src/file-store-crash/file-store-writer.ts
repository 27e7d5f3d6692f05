import { FileContextStore } from '@ctxkit/core';

import { BLOB_KEY, blobText, digestOf, VALUE_KEY, type WriterAck, type WrittenValue } from './crash-record';

/**
 * The writer the file store crash test kills: `node file-store-writer.js <root dir>`. It writes one
 * value (by `set` and by `setIfVersion`, in turn) and one blob (`putBlob`) over and over, each a few
 * megabytes with a counter and a digest of its body, and tells its parent (IPC) each counter once the
 * write has resolved. It goes on from the counters it finds, so the parent can start it again after a kill.
 */

/** A body of about `megabytes` MB that differs for every counter. */
function bodyOf(n: number, megabytes: number): string {
  const line = `${n}:${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3)}\n`;
  return line.repeat(Math.ceil((megabytes * 1024 * 1024) / line.length));
}

async function main(): Promise<void> {
  const store = new FileContextStore({ rootDir: process.argv[2]! });
  const value = await store.getVersioned<WrittenValue>(VALUE_KEY);
  let version = value?.version;
  let n = value?.value.n ?? 0;
  let blobs = 0;
  try {
    for await (const chunk of store.readBlob(BLOB_KEY, { start: 0, end: 32 }))
      blobs = Number(Buffer.from(chunk).toString('utf8').split('\n', 1)[0]);
  } catch (error) {
    // No blob yet (the first start).
    if (!/no such blob/.test(error instanceof Error ? error.message : '')) throw error;
  }
  for (;;) {
    n++;
    const body = bodyOf(n, 4);
    const written: WrittenValue = { n, body, digest: digestOf(body) };
    if (n % 2 === 0) {
      const result = await store.setIfVersion(VALUE_KEY, written, version);
      if (!result.ok) throw new Error(`compare-and-set refused counter ${n}: only this process writes`);
      version = result.version;
    } else {
      await store.set(VALUE_KEY, written);
      version = (await store.getVersioned(VALUE_KEY))!.version;
    }
    process.send!({ kind: 'value', n } satisfies WriterAck);
    blobs++;
    await store.putBlob(BLOB_KEY, blobText(blobs, bodyOf(blobs, 2)));
    process.send!({ kind: 'blob', n: blobs } satisfies WriterAck);
  }
}

main().catch((error: unknown) => {
  setImmediate(() => {
    throw error;
  });
});
