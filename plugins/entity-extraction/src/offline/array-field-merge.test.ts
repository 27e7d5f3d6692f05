import { mergeArrayItems } from './array-field-merge';

describe('mergeArrayItems', () => {
  describe('#merge', () => {
    it('appends new items, skips equal ones and keeps the newest maxItems', () => {
      expect(mergeArrayItems(['A', 'B'], ['B', 'C', 'D'], [], 3)).toEqual(['B', 'C', 'D']);
    });

    it('updates an object item with the same identity in place, newer properties first', () => {
      const current = [
        { reservation_id: 'R1', cabin: 'economy' },
        { reservation_id: 'R2', cabin: 'business' },
      ];
      const merged = mergeArrayItems(
        current,
        [{ reservation_id: 'R1', cabin: 'business', status: 'cancelled' }, { cabin: 'economy' }],
        ['reservation_id'],
        undefined,
      );
      expect(merged).toEqual([
        { reservation_id: 'R1', cabin: 'business', status: 'cancelled' },
        { reservation_id: 'R2', cabin: 'business' },
        { cabin: 'economy' },
      ]);
      expect(current[0]).toEqual({ reservation_id: 'R1', cabin: 'economy' });
    });
  });
});
