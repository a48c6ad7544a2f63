/**
 * How much shell the gate analyses. tree-sitter's parse of a long pipeline grows faster than its
 * length (30,000 pipes took over two seconds of the deciding thread), and the analysis walks the
 * tree recursively, so a script nested thousands of levels deep would exhaust the stack. Past
 * these bounds the command is not analysed: it asks, with the reason.
 */
export const MAX_SHELL_BYTES = 512 * 1024;
export const MAX_SHELL_OPERATORS = 1000;
export const MAX_SHELL_DEPTH = 600;

/** Why a script is too large to analyse before parsing it, or null. */
export function tooLargeToParse(source: string): string | null {
  if (source.length > MAX_SHELL_BYTES) return `the command is ${source.length} characters long, more than the ${MAX_SHELL_BYTES} the gate analyses`;
  let operators = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if ((c === 124 || c === 38) && ++operators > MAX_SHELL_OPERATORS)
      return `the command chains more than ${MAX_SHELL_OPERATORS} pipes and lists, more than the gate analyses`;
  }
  return null;
}

/** Why a parsed script is too deep to analyse, or null. */
export function tooDeepToAnalyse(depth: number): string | null {
  return depth > MAX_SHELL_DEPTH ? `the command nests ${depth} levels deep, more than the ${MAX_SHELL_DEPTH} the gate analyses` : null;
}
