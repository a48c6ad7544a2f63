import { expect, it } from "vitest";

type ErrorClass = abstract new (...args: never[]) => Error;

const isErrorClass = (value: unknown): value is ErrorClass => typeof value === "function" && value.prototype instanceof Error;

/**
 * Checks an errors module: `made` holds one error of each failure case of every class the module
 * exports (a class with several codes, one error per code). Each is named after its class, which
 * ends in `Error`, and carries a code that no other case shares.
 */
export function itGivesEveryErrorItsOwnCode(errors: Record<string, unknown>, made: Record<string, readonly Error[]>): void {
  it("names every error class it exports, each ending in Error", () => {
    const exported = Object.keys(errors).filter((name) => isErrorClass(errors[name]));
    expect(Object.keys(made).sort()).toEqual(exported.sort());
    for (const name of exported) expect(name).toMatch(/Error$/);
  });

  it("gives every failure case a code of its own", () => {
    const codes: unknown[] = [];
    for (const [name, cases] of Object.entries(made)) {
      expect(cases.length).toBeGreaterThan(0);
      for (const err of cases) {
        expect(err).toBeInstanceOf(errors[name] as ErrorClass);
        expect(err.name).toBe(name);
        const { code } = err as Error & { code?: unknown };
        expect(typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code), `${name}'s code ${String(code)}`).toBe(true);
        codes.push(code);
      }
    }
    expect(codes.filter((c, i) => codes.indexOf(c) !== i)).toEqual([]);
  });
}
