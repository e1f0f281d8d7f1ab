// Times echo calls over stdio to an MCP server with the official
// TypeScript SDK client (the reference for bench/mcp.sh).
//   node bench/mcp-echo.mjs N SERVER-COMMAND [ARGS...]   (run with NODE_PATH=<peers>/node_modules)
import { createRequire } from "node:module";
const require = createRequire(process.env.NODE_PATH + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [n, command, ...args] = process.argv.slice(2);
const client = new Client({ name: "bench", version: "1" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const call = () => client.callTool({ name: "echo", arguments: { message: "hello" } });
for (let i = 0; i < 50; i++) await call();
const start = process.hrtime.bigint();
for (let i = 0; i < Number(n); i++) {
  const r = await call();
  if (r.content[0].text !== "Echo: hello") throw new Error("bad answer");
}
const us = Number(process.hrtime.bigint() - start) / 1000 / Number(n);
console.log(`${Math.round(1e6 / us)} calls/s (${us.toFixed(1)} µs/call)`);
await client.close();
