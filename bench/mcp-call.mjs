// Times one tool's calls over stdio to an MCP server with the official
// TypeScript SDK client, for bench/mcp-peers.sh: N calls one after the
// other (after 50 not timed, to warm both sides up), each answer checked.
//   node bench/mcp-call.mjs N TOOL ARGS-JSON EXPECT SERVER-COMMAND [ARGS...]
// (run with NODE_PATH=<peers>/node_modules). EXPECT is a string the
// answer's first text block must contain. Prints one JSON line: p50 and
// p90 latency in µs, calls/s, the server's CPU time per call in µs (from
// /proc, null elsewhere) and the protocol version the session agreed on.
//
// The client sends the SDK's own default protocol version (its latest):
// it is what a client built on this SDK sends, and a server that keeps
// per-version code paths is measured on the one clients use.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.env.NODE_PATH + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [n, name, args, expect, command, ...rest] = process.argv.slice(2);
const input = JSON.parse(args);
const transport = new StdioClientTransport({ command, args: rest, stderr: "ignore" });
let protocol = null;
// The client tells an HTTP transport the version it agreed on through
// this hook; the stdio transport has none, so give it one to learn it.
transport.setProtocolVersion = (v) => { protocol = v; };
const client = new Client({ name: "bench", version: "1" });
await client.connect(transport);

// cpu returns the server process's user+system CPU time in µs, or null.
function cpu() {
  try {
    const f = readFileSync(`/proc/${transport.pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after ")".
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / 100; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

const call = async () => {
  const r = await client.callTool({ name, arguments: input });
  const text = r.content?.[0]?.text ?? "";
  if (r.isError || !text.includes(expect)) {
    throw new Error(`${name}: unexpected answer: ${JSON.stringify(r).slice(0, 300)}`);
  }
};
for (let i = 0; i < 50; i++) await call();
const lat = new Float64Array(Number(n));
const cpu0 = cpu();
const start = process.hrtime.bigint();
for (let i = 0; i < lat.length; i++) {
  const t = process.hrtime.bigint();
  await call();
  lat[i] = Number(process.hrtime.bigint() - t) / 1000;
}
const total = Number(process.hrtime.bigint() - start) / 1000;
const cpu1 = cpu();
lat.sort();
const q = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]);
console.log(JSON.stringify({
  p50_us: q(0.5),
  p90_us: q(0.9),
  calls_per_s: Math.round(lat.length * 1e6 / total),
  server_cpu_us: cpu0 === null || cpu1 === null ? null : Math.round((cpu1 - cpu0) / lat.length),
  protocol,
}));
await client.close();
