import fc from 'fast-check';

import { SerialQueue } from './serial-queue';

describe('SerialQueue', () => {
  it('runs tasks one at a time in call order, whatever their durations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { minLength: 1, maxLength: 8 }),
        async (tasks) => {
          const queue = new SerialQueue();
          const log: string[] = [];
          let running = 0;
          const results = tasks.map(([ticks, fails], index) =>
            queue
              .run(async () => {
                running++;
                expect(running).toBe(1);
                log.push(`start ${index}`);
                for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
                log.push(`end ${index}`);
                running--;
                if (fails) throw new Error(`task ${index}`);
                return index;
              })
              .then(
                (value) => ({ value }),
                (error: Error) => ({ error: error.message }),
              ),
          );
          const settled = await Promise.all(results);
          expect(log).toEqual(tasks.flatMap((_task, index) => [`start ${index}`, `end ${index}`]));
          // A failed task rejects its own caller only; the tasks after it still run.
          expect(settled).toEqual(
            tasks.map(([, fails], index) => (fails ? { error: `task ${index}` } : { value: index })),
          );
        },
      ),
      { numRuns: 50 },
    );
  });
});
