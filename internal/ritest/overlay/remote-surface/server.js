// A session store with nothing in it: reads answer empty, writes refuse.
import { unavailable } from "./common.js";
export function createSurfaceSessionStore() {
  const refuse = (what) => () => {
    throw unavailable(`surface session ${what}`);
  };
  return {
    attach: refuse("attach"),
    authorize: refuse("authorize"),
    mint: refuse("mint"),
    getSummary: () => null,
    invalidate: () => false,
    size: () => 0,
  };
}
