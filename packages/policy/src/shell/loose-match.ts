import picomatch from "picomatch";

type WordTest = "rest" | ((word: string) => boolean);

const compiled = new Map<string, WordTest[]>();

function wordTest(word: string): WordTest {
  if (word === "*") return "rest";
  if (!/[*?[\]{}!()]/.test(word)) return (w) => w === word;
  const re = picomatch.makeRe(word, { dot: true, bash: true });
  return (w) => re.test(w);
}

function testsOf(pattern: string): WordTest[] {
  let tests = compiled.get(pattern);
  if (!tests) {
    tests = pattern.split(" ").filter(Boolean).map(wordTest);
    if (compiled.size < 4096) compiled.set(pattern, tests);
  }
  return tests;
}

const isOption = (w: string) => w.startsWith("-") && w.length > 1;

/** The matcher's table, kept between calls: it is written afresh each time. */
let table = new Uint8Array(256);

/** Whether tests[t..] match words[w..]: filled from the end, O(tests * words), no recursion. */
function matcher(tests: readonly WordTest[], words: readonly string[]): boolean {
  const width = words.length + 1;
  const size = (tests.length + 1) * width;
  if (table.length < size) table = new Uint8Array(size);
  const ok = table;
  // Every row above the last is written before it is read; the last is the empty pattern's.
  ok.fill(0, tests.length * width, size);
  ok[tests.length * width + words.length] = 1;
  for (let t = tests.length - 1; t >= 0; t--) {
    const test = tests[t]!;
    for (let w = words.length; w >= 0; w--) {
      let yes = test === "rest";
      if (test !== "rest" && w < words.length) {
        const word = words[w]!;
        yes = test(word) && ok[(t + 1) * width + w + 1] === 1;
        // Skip an option the pattern does not name, with or without one value after it.
        if (!yes && isOption(word))
          yes = ok[t * width + w + 1] === 1 || (w + 2 <= words.length && !isOption(words[w + 1] ?? "-") && ok[t * width + w + 2] === 1);
      }
      ok[t * width + w] = yes ? 1 : 0;
    }
  }
  return ok[0] === 1;
}

/**
 * Whether a command pattern matches the words when options the pattern does not name are left
 * out, wherever they stand: `git reset -q --hard x` meets `git reset --hard *`, `docker compose
 * -f F down` meets `docker compose down`. Only rules stricter than allow are read this way.
 */
export function looseMatch(pattern: string, words: readonly string[]): boolean {
  const tests = testsOf(pattern);
  const first = tests[0];
  if (first === undefined || first === "rest") return false;
  // The program's name is not an option, so it is never skipped: the first test must take it.
  if (words.length > 0 && !isOption(words[0]!) && !first(words[0]!)) return false;
  return matcher(tests, words);
}
