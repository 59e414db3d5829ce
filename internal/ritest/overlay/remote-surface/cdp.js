import { unavailable } from "./common.js";
export function createCdpServerBackend() {
  throw unavailable("createCdpServerBackend");
}
