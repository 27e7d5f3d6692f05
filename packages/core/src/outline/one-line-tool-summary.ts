import { baseName, languageOfPath } from './source-language';

/** A tool call and its result, as the one-line summary needs them. */
export interface ToolResultSummaryInput {
  toolName: string;
  /** The call's JSON arguments (unparsed). */
  arguments: string;
  content: string;
}

const PATH_KEYS = ['path', 'file', 'file_path', 'filePath', 'filename', 'target_file'];
const COMMAND_KEYS = ['command', 'cmd', 'script'];

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/**
 * Small-context mode A: the one-line summary an older tool result collapses to in small windows, such
 * as `Read: main.go (500 lines, Go)` or `Ran: make test (exit 0, 120 lines)`. Derived only from the
 * call and the result, deterministically; the full result stays in the caller's history.
 */
export function oneLineToolSummary(input: ToolResultSummaryInput): string {
  let args: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(input.arguments || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
  } catch {
    // Arguments that are not JSON leave only the tool name to go on.
  }
  const lines = countLines(input.content);
  const path = PATH_KEYS.map((key) => args[key]).find(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  const command = COMMAND_KEYS.map((key) => args[key]).find(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  const exit = /exit code (\d+)/i.exec(input.content)?.[1];
  const editorVerb = command !== undefined && /^(view|create|str_replace|insert|undo_edit|write|edit)$/.test(command);
  if (command && !(path && editorVerb)) {
    const shown = command.length > 60 ? `${command.slice(0, 57)}...` : command;
    return `Ran: ${shown.replace(/\s+/g, ' ')} (${exit !== undefined ? `exit ${exit}, ` : ''}${lines} lines)`;
  }
  if (path) {
    const language = languageOfPath(path);
    const verb = editorVerb ? command! : input.toolName;
    const action = verb !== 'view' && /write|edit|replace|create|insert/i.test(verb) ? 'Edited' : 'Read';
    return `${action}: ${baseName(path)} (${lines} lines${language !== 'text' ? `, ${language}` : ''})`;
  }
  return `${input.toolName}: ${lines} lines, ${input.content.length} chars`;
}
