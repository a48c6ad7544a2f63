/** Polls `check` every 20 ms until it holds; fails naming what it waited for. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = "a condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
