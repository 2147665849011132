// A machine client's lease (machine-hub.js, "Leases"): how long its locks may outlive its thread.

/** The longest lease a machine hub grants: a day. */
export const LEASE_MAX_MS = 24 * 3600_000;

/** Whether `lease` (a hello's) is a lease a machine hub grants. */
export function validLease(lease) {
  return Number.isSafeInteger(lease) && lease > 0 && lease <= LEASE_MAX_MS;
}
