import 'reflect-metadata';

import { container as globalContainer, injectable, type InjectionToken } from 'tsyringe';

import { AgentContainer } from './agent-container';

const IGreeting: InjectionToken<string> = Symbol.for('ctxkit:test:IGreeting');
interface CounterService {
  next(): number;
}
const ICounter: InjectionToken<CounterService> = Symbol.for('ctxkit:test:ICounter');

@injectable()
class Counter {
  private value = 0;
  next(): number {
    this.value += 1;
    return this.value;
  }
}

describe('AgentContainer', () => {
  describe('#createChild', () => {
    it("sees its parent's registrations, and its own never leak back", () => {
      const agent = new AgentContainer(globalContainer.createChildContainer());
      agent.registerValue(IGreeting, 'hello');
      const child = agent.createChild();
      expect(child.resolve(IGreeting)).toBe('hello');
      child.registerValue(IGreeting, 'child only');
      expect(child.resolve(IGreeting)).toBe('child only');
      expect(agent.resolve(IGreeting)).toBe('hello');
      expect(agent.isRegistered(IGreeting)).toBe(true);
      expect(child.isRegistered(ICounter, true)).toBe(false);
    });
  });

  describe('#registerScoped', () => {
    it('gives one instance per agent container', () => {
      const root = globalContainer.createChildContainer();
      const first = new AgentContainer(root).registerScoped(ICounter, Counter);
      const second = new AgentContainer(root).registerScoped(ICounter, Counter);
      first.resolve<CounterService>(ICounter).next();
      expect(first.resolve<CounterService>(ICounter).next()).toBe(2);
      expect(second.resolve<CounterService>(ICounter).next()).toBe(1);
    });
  });

  describe('#registerFactory', () => {
    it('calls the factory on each resolve with the container', () => {
      const agent = new AgentContainer(globalContainer.createChildContainer());
      let calls = 0;
      agent
        .registerValue(IGreeting, 'hi')
        .registerFactory(ICounter, (c) => ({ next: () => (calls += c.resolve<string>(IGreeting).length) }));
      agent.resolve<CounterService>(ICounter).next();
      agent.resolve<CounterService>(ICounter).next();
      expect(calls).toBe(4);
    });
  });

  describe('#dispose', () => {
    it('is safe to call twice', async () => {
      const agent = new AgentContainer(globalContainer.createChildContainer());
      await agent.dispose();
      await expect(agent.dispose()).resolves.toBeUndefined();
    });
  });
});
