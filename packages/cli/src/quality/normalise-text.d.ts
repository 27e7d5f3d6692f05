/** Lowercase, punctuation and symbols removed, runs of whitespace collapsed to one space. */
export declare function normaliseText(text: string): string;
//# sourceMappingURL=normalise-text.d.ts.map