// Every entry point of the stand-in fails the same way when used.
export function unavailable(what) {
  return new Error(`${what}: no browser surface in the pdpp-mcp test build (@opendatalabs/remote-surface is a stand-in)`);
}
