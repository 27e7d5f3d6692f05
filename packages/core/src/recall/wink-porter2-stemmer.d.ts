declare module 'wink-porter2-stemmer' {
  /** Porter2 (the English "Snowball") stem of one lowercase word. */
  function stem(word: string): string;
  export = stem;
}
