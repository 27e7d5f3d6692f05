import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { HeuristicTokenCounter } from '../token-counting/heuristic-counter';
import { BudgetManager } from './budget-manager';
import { computeBudget } from './compute-budget';
import { UsageLevelTracker } from './usage-level-tracker';

const counter = new HeuristicTokenCounter('local-8k');
/** Text of about `tokens` tokens by the heuristic counter (`floor(chars / 4) + 1`). */
const text = (tokens: number) => 'abcd'.repeat(Math.max(0, tokens - 1));

describe('BudgetManager', () => {
  describe('#measure', () => {
    it('applies the budget formula to the failure pattern of an 8,192 window', () => {
      const manager = new BudgetManager({ contextWindow: 8192, reserveOutputTokens: 1024, counter });
      const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'bash', description: text(1480) } }];
      const history: ChatMessage[] = [{ role: 'user', content: text(1496) }];
      const ledger = manager.measure({ system: text(1996), tools, history });
      expect(ledger.sections.system).toBe(2000);
      expect(ledger.sections.history).toBe(1500);
      expect(ledger.sections.tools).toBeGreaterThan(1480);
      // 8192 − 819 margin − 1024 output = 6349 available; minus the three sections.
      expect(ledger.budget.available).toBe(6349);
      expect(ledger.remaining).toBe(6349 - ledger.used);
      expect(ledger.toolOutputLimit).toBe(Math.floor(ledger.remaining * 0.6));
      expect(ledger.fits).toBe(true);
    });

    it('reports the newest tool result as the last output', () => {
      const manager = new BudgetManager({ contextWindow: 4096, counter });
      const history: ChatMessage[] = [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'a', content: text(200) },
        { role: 'assistant', content: 'done' },
      ];
      expect(manager.measure({ system: 'sys', tools: [], history }).sections.lastToolOutput).toBe(204);
    });

    it('never reports a negative remaining budget', () => {
      const manager = new BudgetManager({ contextWindow: 1000, counter });
      const ledger = manager.measure({ system: text(2000), tools: [], history: [] });
      expect(ledger.remaining).toBe(0);
      expect(ledger.toolOutputLimit).toBe(0);
      expect(ledger.fits).toBe(false);
      expect(ledger.usageLevel).toBe('critical');
    });
  });

  describe('#measurePayload', () => {
    it('counts leading system messages as the system section', () => {
      const manager = new BudgetManager({ contextWindow: 8192, counter });
      const ledger = manager.measurePayload({
        messages: [
          { role: 'system', content: text(100) },
          { role: 'system', content: text(50) },
          { role: 'user', content: text(20) },
        ],
        tools: [],
      });
      expect(ledger.sections).toEqual({ system: 158, tools: 0, history: 24, lastToolOutput: 0 });
    });
  });

  describe('#toolOutputLimit', () => {
    it('shares the limit equally between the calls of one step', () => {
      const manager = new BudgetManager({ contextWindow: 8192, reserveOutputTokens: 1024, counter });
      expect(manager.toolOutputLimit(1349)).toBe(3000);
      expect(manager.toolOutputLimit(1349, 3)).toBe(1000);
    });
  });

  describe('.forBudget', () => {
    it('keeps a strategy budget exactly, margin included', () => {
      const budget = { ...computeBudget({ contextWindow: 16384, safetyMarginRatio: 0.2 }), used: 99, remaining: 1 };
      const manager = BudgetManager.forBudget(budget, counter);
      expect(manager.budget.available).toBe(budget.available);
      expect(manager.budget.used).toBe(0);
      expect(manager.limit).toBe(budget.available);
    });
  });
});

describe('UsageLevelTracker', () => {
  describe('#observe', () => {
    it('reports each crossing once per conversation', () => {
      const tracker = new UsageLevelTracker();
      expect(tracker.observe('s1', 100, 1000)).toBeUndefined();
      expect(tracker.observe('s1', 650, 1000)).toEqual({ from: 'ok', to: 'warn', used: 650, contextWindow: 1000 });
      expect(tracker.observe('s1', 700, 1000)).toBeUndefined();
      expect(tracker.observe('s1', 950, 1000)).toEqual({ from: 'warn', to: 'critical', used: 950, contextWindow: 1000 });
      expect(tracker.observe('s1', 100, 1000)).toEqual({ from: 'critical', to: 'ok', used: 100, contextWindow: 1000 });
    });

    it('keeps conversations apart', () => {
      const tracker = new UsageLevelTracker();
      tracker.observe('s1', 850, 1000);
      expect(tracker.level('s1')).toBe('compact');
      expect(tracker.level('s2')).toBe('ok');
      tracker.reset('s1');
      expect(tracker.level('s1')).toBe('ok');
    });
  });
});
