// ─── Owners: who may read a handle ─────────────────────────────────────────────

/**
 * The caller a kept answer belongs to: the verified session and/or the authenticated subject. A handle reads back
 * only for the same pair (absent is not the same as empty). A call with neither is not folded.
 */
export interface Owner {
  session?: string;
  subject?: string;
}

/** A non-empty string, or `undefined`. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The owner, or `undefined` when the call has neither a session nor a subject (it then passes untouched). */
export function ownerOf(session: unknown, subject: unknown): Owner | undefined {
  const owner: Owner = {};
  const s = nonEmpty(session);
  const u = nonEmpty(subject);
  if (s !== undefined) owner.session = s;
  if (u !== undefined) owner.subject = u;
  return s === undefined && u === undefined ? undefined : owner;
}
