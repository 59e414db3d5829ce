// The lease constants the RI imports at module load; the manager itself
// refuses to exist, as no browser surface runs in the test build.
import { unavailable } from "./common.js";
export const BROWSER_SURFACE_BACKEND_NEKO = "neko";
export const BROWSER_SURFACE_PRIORITY_CLASSES = Object.freeze(["interactive", "scheduled", "background"]);
export const DEFAULT_NEKO_PRIORITY_CLASS = "scheduled";
export const DEFAULT_NEKO_PRIORITY_RANKS = Object.freeze({ interactive: 0, scheduled: 1, background: 2 });
export const DEFAULT_NEKO_IDLE_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_NEKO_LEASE_WAIT_TIMEOUT_MS = 5 * 60 * 1000;
export const TERMINAL_BROWSER_SURFACE_LEASE_STATUSES = Object.freeze(["released", "expired", "failed", "cancelled"]);
export function projectBrowserSurfaceLease(lease) {
  return lease ?? null;
}
export class BrowserSurfaceLeaseManager {
  constructor() {
    throw unavailable("BrowserSurfaceLeaseManager");
  }
}
