/** Prints why `suite` skips on this machine (vitest only marks it skipped) and passes the reason on to `skipIf`. */
export function skipReason(suite: string, reason: string | undefined): string | undefined {
  if (reason) console.log(`[skip] ${suite}: ${reason}`);
  return reason;
}
