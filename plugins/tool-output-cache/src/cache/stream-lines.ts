export interface StreamedLine {
  /** 1-based line number. */
  number: number;
  /** The line without its `\n`, at most `keepChars` characters of it (from `from`). */
  text: string;
  /** Characters of the line before `text` (0 unless `skip` names the line). */
  from: number;
  /** Characters of the whole line. */
  length: number;
}

/**
 * The lines of a UTF-8 byte stream, of each at most `keepChars` characters (the rest counted, not kept), line
 * `skip.line` from character `skip.chars`. A last line without `\n` is yielded; no empty line follows a final `\n`.
 * Breaking out of the loop closes the source stream.
 */
export async function* streamLines(
  chunks: AsyncIterable<Uint8Array>,
  keepChars: number,
  skip?: { line: number; chars: number },
): AsyncGenerator<StreamedLine> {
  const decoder = new TextDecoder('utf-8');
  const keep = Math.max(1, Math.floor(keepChars));
  const skipChars = skip ? Math.max(0, Math.floor(skip.chars)) : 0;
  let parts: string[] = [];
  let kept = 0;
  let length = 0;
  let number = 0;
  // Characters of the current line to pass over before keeping any.
  let from = skip?.line === 1 ? skipChars : 0;
  const take = (piece: string): void => {
    const start = length;
    length += piece.length;
    if (kept >= keep || length <= from) return;
    const offset = Math.max(0, from - start);
    const slice = piece.slice(offset, offset + keep - kept);
    parts.push(slice);
    kept += slice.length;
  };
  const finish = (): StreamedLine => {
    number++;
    const line = { number, text: parts.join(''), from: Math.min(from, length), length };
    parts = [];
    kept = 0;
    length = 0;
    from = skip?.line === number + 1 ? skipChars : 0;
    return line;
  };
  const feed = function* (text: string): Generator<StreamedLine> {
    let position = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', position)) {
      take(text.slice(position, newline));
      yield finish();
      position = newline + 1;
    }
    if (position < text.length) take(text.slice(position));
  };
  for await (const chunk of chunks) yield* feed(decoder.decode(chunk, { stream: true }));
  yield* feed(decoder.decode());
  if (length > 0) yield finish();
}
