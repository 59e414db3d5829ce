// pdpp-mcp's loopback launcher for the PDPP reference implementation: the
// RI's own startServer() (reference-implementation/server/index.ts) on
// 127.0.0.1, on the ports AS_PORT and RS_PORT name (0: any free port). Once
// both servers listen it prints one JSON line to stdout, {"as_url","rs_url"},
// which the Go harness (internal/ritest) waits for. SIGTERM or SIGINT closes
// both servers and the database, then exits.
import { startServer } from "./src/reference-implementation/server/index.ts";
import { closeDb } from "./src/reference-implementation/server/db.ts";

const dbPath = process.env.PDPP_DB_PATH;
if (!dbPath) {
  console.error("launcher: PDPP_DB_PATH is required");
  process.exit(2);
}
const srv = await startServer({
  bindHost: "127.0.0.1",
  asPort: Number(process.env.AS_PORT ?? 0),
  rsPort: Number(process.env.RS_PORT ?? 0),
  dbPath,
});
process.stdout.write(
  JSON.stringify({ as_url: `http://127.0.0.1:${srv.asPort}`, rs_url: `http://127.0.0.1:${srv.rsPort}` }) + "\n",
);

// Each step of the shutdown is bounded: a server that will not close must
// not keep the process (and the test that waits for it) alive.
const within = (ms, p) => Promise.race([p, new Promise((r) => setTimeout(r, ms).unref())]);
const closeServer = (s) =>
  within(
    2000,
    new Promise((r) => {
      try {
        s.closeIdleConnections?.();
        s.close(() => r());
      } catch {
        r();
      }
    }),
  );
let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.error(`launcher: ${signal}, closing`);
  for (const step of [
    () => srv.abortStartupBackfill?.("shutdown"),
    () => srv.schedulerManager?.stop?.(),
    () => srv.stopBrowserSurfaceLeaseSweep?.(),
    () => srv.stopConnectorMaintenanceSweep?.(),
  ]) {
    try {
      step();
    } catch {}
  }
  try {
    await within(2000, srv.stopClientEventDeliveryWorker?.());
  } catch {}
  await Promise.all([closeServer(srv.asServer), closeServer(srv.rsServer)]);
  await within(2000, Promise.allSettled([srv.startupBackfillDone]));
  try {
    closeDb();
  } catch {}
  process.exit(0);
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
// The harness holds the write end of stdin: when it goes away, so does the RI.
process.stdin.on("end", () => stop("stdin closed"));
process.stdin.on("error", () => stop("stdin error"));
process.stdin.resume();
