/**
 * The error `run` throws when it is an `errorClass` (for a test to read its reason or code), or undefined when `run`
 * returns; any other error is thrown on.
 */
export function thrownBy<E extends Error>(run: () => unknown, errorClass: abstract new (...args: never[]) => E): E | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof errorClass) return err;
    throw err;
  }
  return undefined;
}
