// An official TypeScript SDK client against `toolscope serve` on stdio,
// calling the tools of issue 29: Bash in the background, BashOutput,
// KillShell and WebFetch (of a local page the server's --allow names).
// Prints one JSON line per call. Usage:
//
//   node newtools.mjs v1|v2 SDK_NODE_MODULES TOOLSCOPE DIR URL
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [flavour, modules, toolscope, dir, url] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const host = new URL(url).hostname;
const server = {
  command: toolscope,
  args: ['serve', '--cwd', dir, '--mode', 'bypass', '--allow', `WebFetch(domain:${host})`],
  stderr: 'inherit',
};
let client;
if (flavour === 'v2') {
  const { Client } = await load('@modelcontextprotocol/client/dist/index.mjs');
  const { StdioClientTransport } = await load('@modelcontextprotocol/client/dist/stdio.mjs');
  client = new Client({ name: 'newtools', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StdioClientTransport(server));
} else {
  const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
  const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
  client = new Client({ name: 'newtools', version: '1' });
  await client.connect(new StdioClientTransport(server));
}
const out = (o) => console.log(JSON.stringify(o));
const text = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  out({ name, isError: !!r.isError, text: text(r) });
  return text(r);
};
const { tools } = await client.listTools();
out({ name: 'list', tools: tools.map((t) => t.name).sort() });
const started = await call('Bash', { command: 'echo background says hi; sleep 300', run_in_background: true });
const id = (started.match(/bash_\d+/) ?? [''])[0];
let seen = '';
for (let i = 0; i < 100 && !seen.includes('background says hi'); i++) {
  seen = await call('BashOutput', { bash_id: id });
  await new Promise((r) => setTimeout(r, 100));
}
await call('KillShell', { shell_id: id });
await call('WebFetch', { url, prompt: 'what does the page say' });
await client.close();
