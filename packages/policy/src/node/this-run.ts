/**
 * Answers kept until the current synchronous run of the process ends (its queued promise
 * callbacks included): `compute` runs for a key the first time it is asked in a run. Within one
 * run no input is read, so an answer about the file system can be no staler than one taken a few
 * microseconds earlier: the same question asked twice in a run (a decision and its check, a batch
 * of calls) costs one look.
 */
export function perRun<V>(): (key: string, compute: () => V) => V {
  const answers = new Map<string, V>();
  return (key, compute) => {
    if (answers.has(key)) return answers.get(key)!;
    const value = compute();
    if (answers.size === 0) process.nextTick(() => answers.clear());
    answers.set(key, value);
    return value;
  };
}
