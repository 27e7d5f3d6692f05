import { createTokenCounter } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { CountCalibration } from './count-calibration';
import { UsageAnchoredCount } from './usage-anchored-count';

interface ReportedCall {
  message_index: number;
  prompt_tokens: number;
}

const counter = createTokenCounter({ model: 'gpt-4o' });
const openHandsRuns = loadConversations('openhands-multi-swe-bench').map((record) => ({
  id: record.id,
  tools: record.tools ?? [],
  messages: record.messages,
  calls: record.meta?.usage_per_llm_call as ReportedCall[],
}));

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('CountCalibration', () => {
  describe('#on coding-agent runs whose provider (Llama 4 Maverick) reported every prompt', () => {
    // Each call's payload is the run's messages before the answer the call produced.
    it.each(openHandsRuns.map((run) => [run.id, run] as const))(
      'follows the provider within 2%% after five calls: %s',
      (_id, run) => {
        expect(run.calls.length).toBeGreaterThan(10);
        const calibration = new CountCalibration();
        const uncalibrated: number[] = [];
        const calibrated: number[] = [];
        run.calls.forEach((call, index) => {
          const raw = counter.countMessages(run.messages.slice(0, call.message_index)) + counter.countTools(run.tools);
          const observation = calibration.observe(raw, call.prompt_tokens)!;
          if (index >= 5) {
            uncalibrated.push(Math.abs(raw - call.prompt_tokens) / call.prompt_tokens);
            calibrated.push(Math.abs(observation.relativeError));
          }
        });
        // Measured: uncalibrated 7.6% / 19.6% / 12.0%; calibrated 1.6% / 1.2% / 0.6%.
        expect(mean(uncalibrated)).toBeGreaterThan(0.05);
        expect(mean(calibrated)).toBeLessThan(0.02);
      },
    );

    it.each(openHandsRuns.map((run) => [run.id, run] as const))(
      'anchored on the previous report, the estimate is within 2%% after five calls: %s',
      (_id, run) => {
        const anchored = new UsageAnchoredCount(counter, new CountCalibration());
        const errors: number[] = [];
        let anchoredCalls = 0;
        run.calls.forEach((call, index) => {
          const payload = { messages: run.messages.slice(0, call.message_index), tools: run.tools };
          const estimate = anchored.count(payload);
          if (index >= 5) {
            errors.push(Math.abs(estimate.tokens - call.prompt_tokens) / call.prompt_tokens);
            if (estimate.anchoredMessages > 0) anchoredCalls++;
          }
          anchored.record(payload, call.prompt_tokens);
        });
        expect(anchoredCalls).toBe(errors.length);
        // Measured: 1.1% / 0.9% / 0.5%.
        expect(mean(errors)).toBeLessThan(0.02);
      },
    );
  });

  describe('#learning', () => {
    it('starts at 1 and moves towards the reported ratio in bounded steps', () => {
      const calibration = new CountCalibration();
      expect(calibration.calibrate(1000)).toBe(1000);
      const first = calibration.observe(1000, 2000)!;
      expect(first.ignored).toBe(false);
      expect(first.estimatedTokens).toBe(1000);
      expect(first.relativeError).toBeCloseTo(-0.5);
      expect(calibration.correction).toBeCloseTo(1.25); // at most 25% per step
      for (let i = 0; i < 10; i++) calibration.observe(1000, 2000);
      expect(calibration.correction).toBeCloseTo(2, 2);
    });

    it('damps a single outlier and learns a confirmed change', () => {
      const calibration = new CountCalibration();
      for (let i = 0; i < 10; i++) calibration.observe(1000, 1100);
      expect(calibration.correction).toBeCloseTo(1.1, 3);
      const outlier = calibration.observe(1000, 2500)!;
      expect(outlier.damped).toBe(true);
      expect(calibration.correction).toBeLessThan(1.4);
      calibration.observe(1000, 1100);
      calibration.observe(1000, 1100);
      expect(calibration.correction).toBeCloseTo(1.1, 1);
    });

    it('ignores nonsense reports', () => {
      const calibration = new CountCalibration();
      for (const [raw, reported] of [
        [0, 10],
        [10, 0],
        [-5, 10],
        [Number.NaN, 10],
        [10, Number.POSITIVE_INFINITY],
      ] as const) {
        expect(calibration.observe(raw, reported)).toBeUndefined();
      }
      expect(calibration.observations).toBe(0);
      expect(calibration.correction).toBe(1);
    });

    it('ignores reports no tokenizer could explain (a test server, a proxy that counts something else)', () => {
      const calibration = new CountCalibration();
      expect(calibration.observe(2000, 10)).toMatchObject({ ignored: true, correction: 1 });
      expect(calibration.observe(1000, 5000)).toMatchObject({ ignored: true, correction: 1 });
      expect(calibration.observations).toBe(0);
    });

    it('keeps the correction inside its bounds whatever is reported', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 })), { maxLength: 40 }),
          (reports) => {
            const calibration = new CountCalibration();
            for (const [raw, reported] of reports) calibration.observe(raw, reported);
            return calibration.correction >= 0.5 && calibration.correction <= 3;
          },
        ),
      );
    });

    it('resumes from a snapshot', () => {
      const calibration = new CountCalibration();
      for (let i = 0; i < 6; i++) calibration.observe(1000, 1200);
      const resumed = new CountCalibration({}, JSON.parse(JSON.stringify(calibration.snapshot())));
      expect(resumed.correction).toBe(calibration.correction);
      expect(resumed.observations).toBe(6);
      expect(resumed.snapshot()).toEqual(calibration.snapshot());
    });

    it('refuses bounds that exclude 1, with the fix', () => {
      expect(() => new CountCalibration({ minCorrection: 1.2 })).toThrow(/minCorrection must be in \(0, 1\]/);
    });
  });
});
