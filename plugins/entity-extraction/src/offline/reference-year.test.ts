import { referenceYear } from './reference-year';

describe('referenceYear', () => {
  describe('#infer', () => {
    it('takes the year of the latest full date read, so an older date of birth does not win', () => {
      expect(
        referenceYear(['{"dob": "1990-04-05"}', '{"created_at": "2024-05-08T14:32:07"}'], '{}', Date.UTC(2030, 0, 1)),
      ).toBe(2024);
      expect(referenceYear(['no dates here'], '{"dates":["2023-12-30"]}', undefined)).toBe(2023);
    });

    it('falls back to the clock, then to no year', () => {
      expect(referenceYear(['May 20th'], '{}', Date.UTC(2026, 10, 23))).toBe(2026);
      expect(referenceYear(['May 20th'], '{}', undefined)).toBeNull();
    });
  });
});
