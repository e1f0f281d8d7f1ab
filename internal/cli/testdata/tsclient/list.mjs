// Starts an MCP server as a host would, with the official TypeScript SDK's
// StdioClientTransport, and prints the names of its tools, one a line.
// Usage: node list.mjs SDK_NODE_MODULES COMMAND ARGS_JSON
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, command, argsJSON] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
const client = new Client({ name: 'readme', version: '1' });
await client.connect(new StdioClientTransport({ command, args: JSON.parse(argsJSON), stderr: 'inherit' }));
const { tools } = await client.listTools();
for (const t of tools) console.log(t.name);
await client.close();
