import * as fs from 'node:fs';
import * as path from 'node:path';

import { validateManifest } from '@ctxkit/core';

import { AGENTS_DIR, type MultiRoleResult, runMultiRoleProcess } from './main';

describe('multi-role-process', () => {
  describe('#runMultiRoleProcess', () => {
    let result: MultiRoleResult;
    const lines: string[] = [];

    beforeAll(async () => {
      result = await runMultiRoleProcess({ log: (line) => lines.push(line) });
    });

    it('loads four agents from four plugin.json files in one runtime, each with its own strategy', () => {
      expect(result.offline).toBe(true);
      const roles = ['support', 'novelist', 'booking', 'coding'];
      for (const role of roles) expect(validateManifest(path.join(AGENTS_DIR, role, 'plugin.json')).errors).toEqual([]);
      const strategies = new Map(result.roles.map((role) => [role.agentId, role.strategyId]));
      expect(Object.fromEntries(strategies)).toEqual({
        'support-agent': 'std-sliding-window-strategy',
        'novelist-agent': 'std-summarization-strategy',
        'booking-agent': 'std-entity-extraction-strategy',
        'coding-agent': 'std-tool-output-cache-strategy',
      });
    });

    it('shows each strategy at work in its own role', () => {
      const byAgent = (agentId: string) => result.roles.find((role) => role.agentId === agentId)!;
      expect(byAgent('support-agent').dropped).toBeGreaterThan(0);
      expect(byAgent('novelist-agent').summarized).toBeGreaterThan(0);
      expect(byAgent('novelist-agent').memoryTokens).toBeGreaterThan(0);
      expect(byAgent('booking-agent').extra.entities).toBeDefined();
      expect(byAgent('coding-agent').trimmed).toBeGreaterThan(0);
    });

    it('keeps roles and sessions apart: no summary, state or cached output leaks', () => {
      expect(result.isolation.map((check) => check.name)).toEqual([
        'booking sessions keep their own state',
        'no booking session sees the other customer',
        "the novelist's story and summary stay with the novelist",
        'the booking state block stays with the booking agent',
        "the coding agent's cached outputs stay with it",
        'each agent keeps its own keys in the shared store',
      ]);
      for (const check of result.isolation) expect(check).toMatchObject({ ok: true });
      // Each customer's session holds its entity state and the undoable epochs of its extractions.
      expect(result.storeKeys['booking-agent']!.filter((key) => !key.includes('/state/epoch'))).toEqual([
        'customer-a/entities/state',
        'customer-b/entities/state',
      ]);
      for (const customer of ['customer-a', 'customer-b']) {
        expect(result.storeKeys['booking-agent']).toContain(`${customer}/state/epochs`);
        expect(result.storeKeys['booking-agent']!.some((key) => key.startsWith(`${customer}/state/epoch:e1.`))).toBe(
          true,
        );
      }
      expect(result.storeKeys['support-agent']).toEqual([]);
      // The coding agent's cached outputs, and the undoable epochs of the outputs it showed as placeholders.
      expect(
        result.storeKeys['coding-agent']!.filter(
          (key) => !key.startsWith('default/tool-output/') && !key.startsWith('default/state/epoch'),
        ),
      ).toEqual([]);
      expect(result.storeKeys['coding-agent']!.some((key) => key.startsWith('default/tool-output/'))).toBe(true);
    });

    it('swaps the support agent to summarization by changing its manifest and reloading', () => {
      const { before, after } = result.swap;
      expect(before.strategyId).toBe('std-sliding-window-strategy');
      expect(before.memoryTokens).toBe(0);
      expect(before.dropped).toBeGreaterThan(0);
      expect(after.agentId).toBe('support-agent');
      expect(after.strategyId).toBe('std-summarization-strategy');
      expect(after.summarized).toBeGreaterThan(0);
      expect(after.memoryTokens).toBeGreaterThan(0);
      expect(lines.some((line) => line.startsWith('swap: support-agent'))).toBe(true);
      // The swap wrote a changed copy; the example's own manifest still names the sliding window.
      const manifest = JSON.parse(fs.readFileSync(path.join(AGENTS_DIR, 'support', 'plugin.json'), 'utf8')) as {
        contextStrategy: { pluginId: string };
      };
      expect(manifest.contextStrategy.pluginId).toBe('std-sliding-window-strategy');
    });
  });
});
