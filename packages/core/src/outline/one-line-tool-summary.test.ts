import { oneLineToolSummary } from './one-line-tool-summary';

describe('oneLineToolSummary', () => {
  it.each([
    ['read_file', '{"path":"src/main.go"}', 'a\nb\nc\n', 'Read: main.go (3 lines, Go)'],
    [
      'execute_bash',
      '{"command":"make test"}',
      'ok\n[The command completed with exit code 0.]',
      'Ran: make test (exit 0, 2 lines)',
    ],
    ['str_replace_editor', '{"command":"str_replace","path":"/repo/src/x.c"}', 'edited', 'Edited: x.c (1 lines, C)'],
    ['lookup', 'not json', 'x', 'lookup: 1 lines, 1 chars'],
  ])('summarises %s as one line', (toolName, args, content, expected) => {
    expect(oneLineToolSummary({ toolName, arguments: args, content })).toBe(expected);
  });
});
