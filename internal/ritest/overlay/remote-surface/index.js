import { unavailable } from "./common.js";
export class NekoSurfaceAllocatorError extends Error {}
export class NekoSurfaceAllocatorClient {
  constructor() {
    throw unavailable("NekoSurfaceAllocatorClient");
  }
}
export function createNekoSurfaceAllocatorClient() {
  throw unavailable("createNekoSurfaceAllocatorClient");
}
