/** An e-mail address as it is stored and compared: sign-in, lock-out and rate limits all key on this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
