// Records what the reference server's qs makes of each query: run by hand
// with the RI's own qs (6.15.3), one query per input line, e.g.
//   NODE_PATH=<ri>/node_modules/.pnpm/qs@6.15.3/node_modules node gen.cjs < cases.txt > cases.json
// (random.txt: 1,500 random queries over brackets, escapes, indexes and
// prototype names). TestParseQSMatchesReferenceQS replays both files.
const qs = require("qs");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l !== "");
const out = lines.map((q) => JSON.stringify({ query: q, want: qs.parse(q, { arrayLimit: 64, depth: 8 }) }));
process.stdout.write("[\n" + out.join(",\n") + "\n]\n");
