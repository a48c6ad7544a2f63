import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalMark, describeMark } from "../src/shown-call.js";
import { inSight, SCREEN_LIMITS } from "../src/in-sight.js";
import { lookAlikes } from "../src/look-alikes.js";
import { isShowable, originalOf, showJson, showText } from "../src/safe-text.js";

/** Code points a screen interprets, hides or draws as something else. */
const HOSTILE = [
  "\b",
  "\r",
  "\x1b",
  "\x00",
  "\x7f",
  "\f",
  "\v",
  "\t",
  "\x85",
  "\x9b",
  "\u202e",
  "\u202d",
  "\u2066",
  "\u2067",
  "\u2069",
  "\u200b",
  "\u200d",
  "\u2060",
  "\ufeff",
  "\u00ad",
  "\u2028",
  "\u2029",
  "\u00a0",
  "\u3000",
  "\u180e",
  "\u{e0041}",
  "\ufe0f",
  "\u115f",
  "\u2800",
  "\u{1d159}",
  "\ud800",
  "\udc00",
  "⟦",
  "⟧",
  "\\",
];
/** What a printed text may never contain besides a newline. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800\u{1D159}]|(?! )\p{Zs}/u;

const unit = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: "binary", maxLength: 1 }),
  fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
  fc.constantFrom("a", " ", "\n", "x", "1", "u", "{", "E"),
);
const hostileString = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(""));

describe("text made safe to show", () => {
  it("holds no control, bidi or invisible code point, and un-escapes to the original (property)", () => {
    fc.assert(
      fc.property(hostileString, fc.boolean(), (s, oneLine) => {
        const shown = showText(s, { oneLine });
        expect(oneLine ? shown.text : shown.text.replace(/[\n\t]/g, "")).not.toMatch(INVISIBLE);
        expect(isShowable(shown.text)).toBe(true);
        if (oneLine) expect(shown.text).not.toMatch(/[\n\t]/);
        expect(originalOf(shown)).toBe(s);
      }),
      { numRuns: 3000 },
    );
  });

  it("JSON made safe parses back to the value and holds nothing invisible (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(hostileString, hostileString, { maxKeys: 4 }), (args) => {
        const { text } = showJson(args, 2);
        expect(text.replace(/\n/g, "")).not.toMatch(INVISIBLE);
        expect(JSON.parse(text)).toEqual(args);
      }),
      { numRuns: 1000 },
    );
  });

  it("writes each class as a visible escape and counts it", () => {
    expect(showText("mv build .trash\b\b\b\b\b\b\b\b\b\b\b\b\b\b\bnotes.txt notes.md")).toMatchObject({ hidden: 15, kinds: ["\\b"] });
    expect(showText("echo ok \u202e; hsart. dliub vm # \u202c").text).toBe("echo ok \\u202E; hsart. dliub vm # \\u202C");
    expect(showText("a\r\x1b[2Kb\x00\x7f\x9b").text).toBe("a\\r\\x1b[2Kb\\x00\\x7f\\x9b");
    expect(showText("tag\u{e0041}\u200b").text).toBe("tag\\u{E0041}\\u200B");
    expect(showText("rm -rf a\u2800b c\u{1d159}d").text).toBe("rm -rf a\\u2800b c\\u{1D159}d");
    expect(showText("grep 'a\\.b' x\ty\nz")).toEqual({ text: "grep 'a\\.b' x\ty\nz", escaped: false, hidden: 0, kinds: [] });
    expect(showText("a\\b\x1b").text).toBe("a\\\\b\\x1b");
    expect(showText("x\ny\tz", { oneLine: true }).text).toBe("x\\ny\\tz");
    expect(showText("fake ⟦4 spaces⟧").text).toBe("fake \\u27E6" + "4 spaces\\u27E7");
    expect([isShowable("a ⟦4 spaces⟧ b\tc\nd"), isShowable("a\u00a0b"), isShowable("a\bb")]).toEqual([true, false, false]);
  });
});

describe("look-alike letters", () => {
  it("marks a word mixing scripts, and fullwidth letters, not plain words in one script", () => {
    expect(lookAlikes("c\u0430t /etc/p\u0430sswd")).toEqual([
      { word: "c\\u0430t", scripts: ["Latin", "Cyrillic"] },
      { word: "p\\u0430sswd", scripts: ["Latin", "Cyrillic"] },
    ]);
    expect(lookAlikes("ｃａｔ x")[0]).toMatchObject({ scripts: ["compatibility"] });
    expect(lookAlikes("cat файл Ω-free λ x 日本語のtext café")).toEqual([]);
  });
});

describe("text kept within sight", () => {
  it("says what a run of spaces, a long line, blank lines and extra lines left out, and where", () => {
    const { text, cuts } = inSight(`echo ok${" ".repeat(4000)}; rm -rf build`, SCREEN_LIMITS);
    expect(text).toBe("echo ok ⟦4,000 spaces⟧ ; rm -rf build");
    expect(cuts).toEqual([{ line: 1, what: "4,000 spaces" }]);
    const long = inSight(`x${"y".repeat(1000)}`, SCREEN_LIMITS);
    expect(long.text).toBe(`x${"y".repeat(299)} ⟦701 more characters on this line⟧`);
    const blank = inSight(`echo hi${"\n".repeat(300)}rm -rf ~`, SCREEN_LIMITS);
    expect(blank.text).toBe("echo hi\n⟦299 blank lines⟧\nrm -rf ~");
    expect(blank.cuts).toEqual([{ line: 2, lastLine: 300, what: "299 blank lines" }]);
    const many = inSight(Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n"), SCREEN_LIMITS);
    expect(many.text.split("\n")).toHaveLength(17);
    expect(many.text).toMatch(/line 16\n⟦24 more lines⟧$/);
  });

  it("measures blanks in columns: a tab runs to its tab stop, and combining marks do not split a run", () => {
    const tabs = inSight(`echo building the docs${"\t".repeat(15)}; rm -rf src`, SCREEN_LIMITS);
    expect(tabs.text).toBe("echo building the docs ⟦15 tabs⟧ ; rm -rf src");
    expect(tabs.cuts).toEqual([{ line: 1, what: "15 tabs" }]);
    expect(inSight(`a\t\tb`, SCREEN_LIMITS).text).toBe("a\t\tb");
    const chained = inSight(`echo ok${" \u0301".repeat(20)}; rm -rf src`, SCREEN_LIMITS);
    expect(chained.cuts).toEqual([{ line: 1, what: "20 spaces and 20 combining marks" }]);
    expect(inSight(`${"\t".repeat(4)}return x`, { ...SCREEN_LIMITS, diff: true }).cuts).toEqual([]);
    expect(inSight(`+${"\t".repeat(4)}x${"\t".repeat(3)}y`, { ...SCREEN_LIMITS, diff: true }).cuts).toEqual([{ line: 1, what: "3 tabs" }]);
  });

  it("leaves a stack of combining marks out with a marker; a few stay", () => {
    const zalgo = inSight(`echo ok${"\u0489".repeat(480)} done`, SCREEN_LIMITS);
    expect(zalgo.text).toBe("echo ok ⟦480 combining marks⟧  done");
    expect(zalgo.cuts).toEqual([{ line: 1, what: "480 combining marks" }]);
    expect(inSight("Vie\u0302\u0323t cafe\u0301", SCREEN_LIMITS).cuts).toEqual([]);
  });

  it("never cuts an escape in two", () => {
    const shown = showText(`${"a".repeat(298)}\u202e${"b".repeat(10)}`).text;
    expect(inSight(shown, SCREEN_LIMITS).text).toBe(`${"a".repeat(298)} ⟦16 more characters on this line⟧`);
  });
});

describe("the mark of a call", () => {
  it("counts hidden characters in the arguments and names the look-alikes", () => {
    const mark = approvalMark({ toolName: "shell_exec", arguments: JSON.stringify({ command: "c\u0430t x\b\u202e" }), presentation: null });
    expect(describeMark(mark)).toEqual([
      "contains 2 invisible characters, shown as escapes (\\b, \\u202E)",
      "look-alike letters: c\\u0430t (Latin and Cyrillic)",
    ]);
    expect(describeMark(approvalMark({ toolName: "shell_exec", arguments: '{"command":"ls"}', presentation: null }))).toEqual([]);
  });
});
