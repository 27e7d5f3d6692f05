import type { ModelMessage, PrepareStepFunction, ToolSet } from 'ai';

/** What `prepareStep` is given (the parts the adapter reads). */
export type PrepareStepOptions = Parameters<PrepareStepFunction<ToolSet>>[0];

/**
 * The whole conversation before a step, rebuilt from what the AI SDK keeps unchanged: the initial
 * messages, the response messages of the tool approvals run before the first step, then for every
 * step its steering messages and its response messages, then this step's steering messages.
 * (`options.messages` cannot be used: a `messages` override carries forward, so after the first
 * step it holds the previous payload, not the conversation.)
 */
export function stepHistory(
  options: Pick<PrepareStepOptions, 'initialMessages' | 'responseMessages' | 'steps' | 'experimental_steeringMessages'>,
): ModelMessage[] {
  const fromSteps = options.steps.reduce((sum, step) => sum + step.response.messages.length, 0);
  const history: ModelMessage[] = [
    ...options.initialMessages,
    ...options.responseMessages.slice(0, options.responseMessages.length - fromSteps),
  ];
  for (const step of options.steps) {
    history.push(...(step.experimental_steeringMessages ?? []), ...step.response.messages);
  }
  history.push(...(options.experimental_steeringMessages ?? []));
  return history;
}
