import type { ToolResultOutput } from './ai-sdk-types';

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The marker ctxkit shows for a file it cannot hold as text (`[file report.pdf, application/pdf]`). */
export function fileMarker(filename: string | undefined, mediaType: string | undefined): string {
  const names = [filename, mediaType].filter((value): value is string => typeof value === 'string' && value !== '');
  return names.length > 0 ? `[file ${names.join(', ')}]` : '[file]';
}

/**
 * The text of a tool result as the model reads it: a text or error text as it is, a JSON value as
 * its JSON, a denial as its reason, multi-part content as its texts (files as markers).
 */
export function toolResultText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return jsonText(output.value);
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied.';
    case 'content':
      return output.value
        .map((item) => {
          if (item.type === 'text') return item.text;
          if (item.type === 'custom') return '[custom content]';
          const file = item as { mediaType?: string; filename?: string };
          return fileMarker(file.filename, file.mediaType);
        })
        .join('\n');
    default:
      return jsonText(output);
  }
}
