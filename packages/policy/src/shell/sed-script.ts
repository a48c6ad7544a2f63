/** What a sed script does besides editing its input: files it reads or writes, commands it runs. */
export interface SedEffects {
  reads: string[];
  writes: string[];
  /** Why the script runs commands or could not be read, or null. */
  risk: string | null;
}

const SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F", "l", "L", "q", "Q"]);
const TO_END_OF_LINE = new Set(["a", "i", "c", ":", "b", "t", "T", "#", "v"]);
const SCRIPTS_LONGER_THAN_THIS_ASK = 16_384;

/** Reads a GNU sed script command by command, with every address form; unknown commands are a risk. */
export function sedEffects(script: string): SedEffects {
  const out: SedEffects = { reads: [], writes: [], risk: null };
  if (script.length > SCRIPTS_LONGER_THAN_THIS_ASK) return { ...out, risk: "the sed script is too long to check" };
  const r = new SedReader(script, out);
  try {
    r.script();
  } catch (err) {
    out.risk ??= err instanceof SedSyntaxError ? `the sed script could not be read: ${err.message}` : "the sed script could not be read";
  }
  return out;
}

/** A script the reader cannot follow to its end: it leaves the script at once, the script's risk naming why. */
class SedSyntaxError extends Error {
  override readonly name = "SedSyntaxError";
  readonly code = "SED_SYNTAX";
}

class SedReader {
  private i = 0;

  constructor(
    private readonly s: string,
    private readonly out: SedEffects,
  ) {}

  script(): void {
    while (this.skipSeparators()) {
      this.address();
      this.skipBlanks();
      if (this.s[this.i] === "!") {
        this.i++;
        this.skipBlanks();
      }
      this.command();
    }
  }

  private skipSeparators(): boolean {
    while (this.i < this.s.length && /[\s;]/.test(this.s[this.i]!)) this.i++;
    return this.i < this.s.length;
  }

  private skipBlanks(): void {
    while (this.s[this.i] === " " || this.s[this.i] === "\t") this.i++;
  }

  private address(): void {
    this.oneAddress();
    this.skipBlanks();
    if (this.s[this.i] === ",") {
      this.i++;
      this.skipBlanks();
      if (this.s[this.i] === "+" || this.s[this.i] === "~") this.i++;
      this.oneAddress();
    }
  }

  private oneAddress(): void {
    const c = this.s[this.i];
    if (c === undefined) return;
    if (/\d/.test(c)) {
      while (/[\d~]/.test(this.s[this.i] ?? "")) this.i++;
    } else if (c === "$") this.i++;
    else if (c === "/") this.delimited("/");
    else if (c === "\\") {
      const delimiter = this.s[this.i + 1];
      if (delimiter === undefined || delimiter === "\n") throw new SedSyntaxError("an address ends early");
      this.i++;
      this.delimited(delimiter);
    } else return;
    while (/[IM]/.test(this.s[this.i] ?? "")) this.i++;
  }

  /** Skips `<d>...<d>` with backslash escapes, starting at the opening delimiter. */
  private delimited(delimiter: string): void {
    this.i++;
    while (this.i < this.s.length && this.s[this.i] !== delimiter) {
      if (this.s[this.i] === "\\") this.i++;
      if (this.s[this.i] === "\n" && delimiter !== "\n") throw new SedSyntaxError("a newline inside a regular expression");
      this.i++;
    }
    if (this.i >= this.s.length) throw new SedSyntaxError("a regular expression is not closed");
    this.i++;
  }

  private restOfLine(): string {
    const end = this.s.indexOf("\n", this.i);
    const text = this.s.slice(this.i, end === -1 ? this.s.length : end);
    this.i = end === -1 ? this.s.length : end;
    return text;
  }

  private fileName(): string {
    this.skipBlanks();
    const name = this.restOfLine();
    if (name === "") throw new SedSyntaxError("a file command has no file name");
    return name;
  }

  private command(): void {
    const c = this.s[this.i++];
    if (c === undefined) throw new SedSyntaxError("an address has no command");
    if (c === "{" || c === "}") return;
    if (SIMPLE.has(c)) return this.skipNumber();
    if (TO_END_OF_LINE.has(c)) return void this.labelOrText(c);
    if (c === "r" || c === "R") return void this.out.reads.push(this.fileName());
    if (c === "w" || c === "W") return void this.out.writes.push(this.fileName());
    if (c === "e") {
      this.out.risk ??= "the sed script runs a command (e)";
      return void this.restOfLine();
    }
    if (c === "s") return this.substitute();
    if (c === "y") return this.transliterate();
    throw new SedSyntaxError(`"${c}" is not a sed command the gate knows`);
  }

  private skipNumber(): void {
    this.skipBlanks();
    while (/\d/.test(this.s[this.i] ?? "")) this.i++;
  }

  /** Labels and branch targets end at `;` or a newline; a/i/c text at the end of the line. */
  private labelOrText(c: string): void {
    if (c === ":" || c === "b" || c === "t" || c === "T" || c === "v") {
      while (this.i < this.s.length && !/[;\n}]/.test(this.s[this.i]!)) this.i++;
    } else this.restOfLine();
  }

  private substitute(): void {
    const delimiter = this.s[this.i];
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new SedSyntaxError("s has no delimiter");
    this.delimited(delimiter);
    this.i--;
    this.delimited(delimiter);
    while (this.i < this.s.length && /[gpiImMe0-9w]/.test(this.s[this.i]!)) {
      const flag = this.s[this.i++]!;
      if (flag === "e") this.out.risk ??= "the sed script runs its result as a command (s///e)";
      if (flag === "w") return void this.out.writes.push(this.fileName());
    }
  }

  private transliterate(): void {
    const delimiter = this.s[this.i];
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new SedSyntaxError("y has no delimiter");
    this.delimited(delimiter);
    this.i--;
    this.delimited(delimiter);
  }
}
